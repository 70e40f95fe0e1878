import { OdrApiError } from '../../../shared/client/odrClient';
import { api, restoreRecord } from './api';
import { holdingEvents, pushRunning, refusal, UndoRefused, type Operation } from './edits';

/** The service deletes at most this many records per request (MAX_DELETE). */
const CHUNK = 100;
/** How long a delete's toast offers Undo (Ctrl+Z works as long as the page lives). */
export const UNDO_TOAST_MS = 6000;

const notFound = (e: unknown) => e instanceof OdrApiError && e.status === 404;

/** Whether the record is there now (put back or deleted by another way than this step). */
async function exists(uuid: string): Promise<boolean> {
  try {
    await api.record(uuid);
    return true;
  } catch (e) {
    if (notFound(e)) return false;
    throw e;
  }
}

/**
 * Deletes records (top-level, or child records from the record pane) at once, its undo-history
 * step on the undo list from the start (Ctrl+Z while it runs is this delete's and waits for its
 * end; the step leaves when nothing was deleted): undo puts them back (a child under its parent)
 * from the service's record trash (POST /local/records/{uuid}/restore, kept 30 days), redo
 * deletes them again. Both pick up where a failed run stopped: the step knows which records are gone.
 * Records put back another way meanwhile (the Trash panel, another window) are no longer the
 * step's to restore; records deleted another way are not deleted twice.
 * `op` is null when nothing was deleted; `error` says why not all were; `deleted`: the records
 * this run deleted (all asked, some before an error, or none).
 */
export async function deleteRecords(
  uuids: string[],
  what: string,
): Promise<{ op: Operation | null; error: unknown; deleted: ReadonlySet<string> }> {
  const gone = new Set<string>();
  const remove = () =>
    holdingEvents(async () => {
      const left = uuids.filter((u) => !gone.has(u));
      for (let i = 0; i < left.length; i += CHUNK) {
        let chunk = left.slice(i, i + CHUNK);
        try {
          await api.deleteRecords(chunk);
        } catch (e) {
          // Some were deleted meanwhile by another way: those are gone already, the rest go now.
          if (!notFound(e)) throw e;
          const there = (await Promise.all(chunk.map(async (u) => ((await exists(u)) ? u : null)))).filter((u) => u !== null);
          for (const u of chunk) if (!there.includes(u)) gone.add(u);
          chunk = there;
          if (chunk.length) await api.deleteRecords(chunk);
        }
        for (const u of chunk) gone.add(u);
      }
    });
  const op: Operation = {
    kind: 'delete',
    label: `the delete of ${what}`,
    undo: () =>
      holdingEvents(async () => {
        const lost: string[] = [];
        for (const u of [...gone]) {
          try {
            await restoreRecord(u);
          } catch (e) {
            // Not in the trash: back already (another window, a sync), or out of reach for good.
            if (!notFound(e)) throw refusal(e);
            if (!(await exists(u))) lost.push(u);
          }
          if (!lost.includes(u)) gone.delete(u);
        }
        if (lost.length)
          throw new UndoRefused(
            `${lost.length === uuids.length ? (uuids.length === 1 ? 'it is' : 'they are') : `${lost.length.toLocaleString()} of them are`} no longer in the Trash (kept 30 days), or your role no longer lets you restore ${lost.length === 1 ? 'it' : 'them'}`,
            true,
          );
      }),
    redo: remove,
    restoredElsewhere: (back) => {
      for (const u of back) gone.delete(u);
      return gone.size === 0;
    },
  };
  const run = remove().then(
    () => ({ error: null as unknown }),
    (error: unknown) => ({ error }),
  );
  // Chunks sent before an error are deleted all the same: those are on the undo list.
  pushRunning(
    op,
    run.then(() => gone.size > 0),
  );
  const { error } = await run;
  // A copy: the step's own set shrinks as an undo puts records back.
  return { op: gone.size ? op : null, error, deleted: new Set(gone) };
}
