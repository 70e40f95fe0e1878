import { useEffect, useState } from 'react';
import type { DesktopBridge, LoopbackState } from '../../../shared/desktopBridge';
import { api, errorText } from '../lib/api';
import { SidePanel } from '../ui/SidePanel';
import { SteadyButton } from '../ui/SteadyButton';

/** The preload's bridge in the desktop app; absent in a browser (npm run serve). */
export const desktop = (): DesktopBridge | undefined => (window as unknown as { odrDesktop?: DesktopBridge }).odrDesktop;

/**
 * Desktop settings: where the data lives, and the optional loopback listener through which the
 * user's own ODR scripts reach this local API (off by default).
 */
export function SettingsPanel({ bridge, onClose }: { bridge: DesktopBridge; onClose: () => void }) {
  const [info, setInfo] = useState<{ version: string; dataDir: string } | null>(null);
  const [loop, setLoop] = useState<LoopbackState | null>(null);
  const [port, setPort] = useState('8460');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void bridge.appInfo().then(setInfo);
    void bridge.loopback().then((l) => {
      setLoop(l);
      setPort(String(l.settings.port));
    });
  }, [bridge]);

  const apply = async (enabled: boolean) => {
    const n = Number(port);
    if (!Number.isInteger(n) || n < 1024 || n > 65535) {
      setError('The port must be a whole number from 1024 to 65535');
      return;
    }
    setBusy(true);
    setError('');
    try {
      setLoop(await bridge.setLoopback({ enabled, port: n }));
    } catch (e) {
      setError(`Not changed: ${errorText(e).replace(/^Error invoking remote method '[^']+': (Error: )?/, '')}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <SidePanel title="Settings" className="settings-panel" onClose={onClose}>
      <section aria-label="Data">
        <h3>Data</h3>
        <p className="mono small" data-testid="data-dir">
          {info?.dataDir ?? '…'}
        </p>
        <button type="button" onClick={() => void bridge.revealDataDir()}>
          Show in folder
        </button>
        <p className="muted small">odr-desktop {info?.version ?? ''}</p>
      </section>
      <section aria-label="Local API for scripts">
        <h3>Local API for your scripts</h3>
        <p className="muted small">
          Lets ODR scripts on this computer reach the local data over HTTP on 127.0.0.1. Off unless you turn it on.
        </p>
        <label className="settings-row">
          Port <input inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} aria-label="Port" />
        </label>
        <label className="settings-row">
          <input
            type="checkbox"
            checked={!!loop?.settings.enabled}
            disabled={busy || !loop}
            onChange={(e) => void apply(e.target.checked)}
          />{' '}
          Listen on 127.0.0.1
        </label>
        {loop?.settings.enabled && loop.settings.port !== Number(port) && (
          <SteadyButton type="button" disabled={busy} onClick={() => void apply(true)}>
            Use port {port}
          </SteadyButton>
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        {loop?.url && (
          <div className="settings-api" role="status">
            <p className="small">
              API: <span className="mono">{loop.url}</span>
            </p>
            <p className="small">
              Token (this session; scripts can also get their own with <span className="mono">POST /token</span>):
            </p>
            <textarea readOnly rows={3} className="mono" aria-label="Token" value={api.token ?? ''} onFocus={(e) => e.target.select()} />
          </div>
        )}
      </section>
    </SidePanel>
  );
}
