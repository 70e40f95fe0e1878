import { useEffect, useRef, useState } from 'react';
import { ImportOdrButton } from '../jobs/ImportOdrButton';
import { createSample, errorText } from '../lib/api';
import { toast } from '../ui/toasts';

// Generated streaming by the service, so even the largest takes no more memory than the smallest.
const SAMPLE_SIZES = [500, 10_000, 100_000, 1_000_000, 2_000_000];

/** First run (no datasets yet): import an ODR export, or generate a sample to look around. */
let headingAsked = false;
/** The dataset on screen was deleted (its Delete button with it): the screen after it takes the focus. */
export const focusWelcome = () => {
  headingAsked = true;
};

export function Welcome({ hasDatasets, onStarted }: { hasDatasets: boolean; onStarted: () => void }) {
  const [size, setSize] = useState(500);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!headingAsked) return;
    headingAsked = false;
    heading.current?.focus();
  }, []);
  if (hasDatasets) {
    return (
      <main className="main welcome">
        <h1 ref={heading} tabIndex={-1}>
          Choose a dataset
        </h1>
        <p className="muted">Pick a dataset on the left to browse and edit its records.</p>
      </main>
    );
  }
  const run = (p: Promise<unknown>, what: string) =>
    p.then(onStarted, (e: unknown) => toast({ kind: 'error', text: `${what} not started: ${errorText(e)}` }));
  return (
    <main className="main welcome">
      <h1 ref={heading} tabIndex={-1}>
        Welcome to odr-desktop
      </h1>
      <p className="muted">Your data stays in a local database on this computer. Start with your own ODR data or a sample.</p>
      <div className="welcome-actions">
        <ImportOdrButton className="primary" onStarted={onStarted}>
          Import an ODR export…
        </ImportOdrButton>
        <button type="button" onClick={() => run(createSample(size), 'Sample')}>
          Generate a sample dataset
        </button>
        <select aria-label="Sample size" value={size} onChange={(e) => setSize(Number(e.target.value))}>
          {SAMPLE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n.toLocaleString()} records
            </option>
          ))}
        </select>
      </div>
      <p className="muted small">
        Template exports and record exports ({'{count, records}'}) from any ODR server work; imports run as jobs.
      </p>
    </main>
  );
}
