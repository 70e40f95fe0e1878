import { api, restoreRecord } from './api';
import { holdingEvents, type Operation } from './edits';

/** The service deletes at most this many records per request (MAX_DELETE). */
const CHUNK = 100;
/** How long a delete's toast offers Undo (Ctrl+Z works as long as the page lives). */
export const UNDO_TOAST_MS = 6000;

/**
 * Deletes records (top-level, or child records from the record pane) at once and answers the
 * undo-history step for it: undo puts them back (a child under its parent) from the
 * service's record trash (POST /local/records/{uuid}/restore, kept 30 days), redo deletes them
 * again. Both pick up where a failed run stopped: the step knows which records are gone.
 * `op` is null when nothing was deleted; `error` says why not all were.
 */
export async function deleteRecords(uuids: string[], what: string): Promise<{ op: Operation | null; error: unknown }> {
  const gone = new Set<string>();
  const remove = () =>
    holdingEvents(async () => {
      const left = uuids.filter((u) => !gone.has(u));
      for (let i = 0; i < left.length; i += CHUNK) {
        const chunk = left.slice(i, i + CHUNK);
        await api.deleteRecords(chunk);
        for (const u of chunk) gone.add(u);
      }
    });
  const op: Operation = {
    kind: 'delete',
    label: `the delete of ${what}`,
    undo: () =>
      holdingEvents(async () => {
        for (const u of [...gone]) {
          await restoreRecord(u);
          gone.delete(u);
        }
      }),
    redo: remove,
  };
  try {
    await remove();
    return { op, error: null };
  } catch (error) {
    // Chunks sent before the error are deleted all the same: those are on the undo list.
    return { op: gone.size ? op : null, error };
  }
}
