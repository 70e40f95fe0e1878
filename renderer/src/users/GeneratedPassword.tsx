import { useEffect, useRef, useState } from 'react';
import './generatedPassword.css';

/**
 * The password the service chose for a user added without one. The service answers it once and
 * keeps only its hash, so this is the one place it can be read: it stays until Done, and Copy
 * takes the focus because copying it is the admin's next step.
 */
export function GeneratedPassword({ email, password, onDone }: { email: string; password: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = useRef<HTMLButtonElement>(null);
  useEffect(() => copy.current?.focus(), []);
  return (
    <section className="generated-password" aria-label={`Password for ${email}`}>
      <p>
        <strong>{email}</strong> can sign in with this password. It is shown only now: copy it and pass it on.
      </p>
      <div className="generated-password-row">
        <code data-testid="generated-password">{password}</code>
        <button
          ref={copy}
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(password).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            )
          }
        >
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p className="muted small" role="status">
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Could not copy: select the password and copy it.' : ''}
      </p>
    </section>
  );
}
