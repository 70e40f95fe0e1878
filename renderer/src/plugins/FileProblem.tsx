import { useSyncedDatasets, useSyncStatus } from '../lib/queries';
import { FileUnavailable } from './fileText';

/**
 * What a chart or table says when its file's bytes are not on this computer (exports carry
 * metadata only): with a remote attached, a button asks the service again (GET /file fetches
 * remote-only files); without one, where to attach it.
 */
export function FileProblem({ error, names, retry }: { error: unknown; names: string[]; retry: () => void }) {
  // The remote's address is a super-user's to see; every user may fetch through a synced dataset.
  const remotes = useSyncStatus().data?.remotes ?? [];
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
          {remotes.length || synced ? (
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
