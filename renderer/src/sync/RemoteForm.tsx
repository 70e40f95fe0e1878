import { useState } from 'react';
import { addRemote, errorText } from '../lib/api';
import { SteadyButton } from '../ui/SteadyButton';

/** Attach a remote ODR server: the service logs in once to check, then keeps the password sealed. */
export function RemoteForm({ onAdded, onCancel }: { onAdded: (id: number) => void; onCancel?: () => void }) {
  const [url, setUrl] = useState('https://');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError('');
    try {
      const { id } = await addRemote({ url: url.trim(), username: username.trim(), password });
      setPassword('');
      onAdded(id);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="remote-form"
      aria-label="Add a remote"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <p className="muted small">Connect to an ODR server to pull datasets and send the changes made here.</p>
      <label>
        Server API address
        <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://odr.example.org/api/v4" required />
      </label>
      <label>
        Email
        <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" required />
      </label>
      <label>
        Password
        <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" required />
      </label>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="conflict-actions">
        <SteadyButton type="submit" className="primary" disabled={busy}>
          {busy ? 'Connecting…' : 'Connect'}
        </SteadyButton>
        {onCancel && (
          <button type="button" className="link" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
