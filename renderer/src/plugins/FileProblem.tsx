import { useSyncedDatasets, useSyncStatus } from '../lib/queries';
import { FileUnavailable } from './fileText';

/**
 * What a chart or table says when its file's bytes are not on this computer (exports carry
 * metadata only): in a synced dataset, a button asks the service again (GET /file fetches
 * remote-only files); otherwise, where to attach the server.
 */
export function FileProblem({ error, names, retry }: { error: unknown; names: string[]; retry: () => void }) {
  // Every user may fetch through a synced dataset (GET /local/synced-datasets). The remote's
  // address is a super-user's to see: read from the sync status the app header already keeps
  // for them, never requested here (GET /local/sync answers 403 to everyone else).
  const remotes = useSyncStatus(false).data?.remotes ?? [];
  const synced = (useSyncedDatasets().data ?? []).length > 0;
  const notHere = error instanceof FileUnavailable && error.notHere;
  const what = names.length === 1 ? names[0] : `${names.length} files`;
  return (
    <div className="plugin-problem" role="status" data-testid="file-problem">
      {notHere ? (
        <>
          <p>
            <strong>
              {what} {names.length === 1 ? 'is' : 'are'} not on this computer.
            </strong>{' '}
            The export carried the file{names.length === 1 ? '' : 's'} as metadata only; the bytes are on the ODR server.
          </p>
          {synced ? (
            <button type="button" onClick={retry}>
              Fetch from {remotes[0]?.url ?? 'the ODR server'}
            </button>
          ) : (
            <p className="muted">Attach the ODR server in Sync to fetch {names.length === 1 ? 'it' : 'them'}.</p>
          )}
        </>
      ) : (
        <p>
          Could not read {what}: {error instanceof Error ? error.message : String(error)}{' '}
          <button type="button" className="link" onClick={retry}>
            Try again
          </button>
        </p>
      )}
      {notHere && error instanceof Error && <p className="muted small">{error.message}</p>}
    </div>
  );
}
