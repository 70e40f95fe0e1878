import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { OdrApiError } from '../../shared/client/odrClient';
import { App } from './App';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // The service is local: data is fresh until the event stream says otherwise. A refusal (4xx)
    // answers the same again, so only a failure that may pass (network, 5xx) is tried once more.
    queries: {
      staleTime: 30_000,
      retry: (failures, error) => failures < 1 && !(error instanceof OdrApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
