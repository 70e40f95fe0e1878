import type { OdrRecord } from '../../../shared/schemas/record.js';
import { sameMeta, serverFiles, type ServerFile } from './fileMerge.js';
import { fieldStates, same, type FieldState } from './recordFields.js';
import type { OpName } from '../store/syncState.js';

// Writes that reach the store without field-level change-log entries (CSV import, ODR-export
// import, a replace import over a synced record) are pushed as the difference between the
// record here and its last server copy (docs/sync.md §2). No I/O: pushConverge.ts feeds it the
// copies and turns the answer into outbox operations, which then go through the usual checks.

/** One operation to add to the outbox for the record. */
export interface ConvergeOp {
  op: Extract<OpName, 'value' | 'option' | 'public' | 'file_upload' | 'file_meta' | 'file_delete'>;
  field: string;
  item: string;
  payload: unknown;
}

export interface ConvergeInput {
  /** The record here (its own fields; children are converged on their own). */
  local: OdrRecord;
  /** Its last server copy with our record uuids (file uuids the server's), or null when new there. */
  base: OdrRecord | null;
  /** Whether a field is shown here (not unknown, not removed by the server's template). */
  live: (field: string) => boolean;
  /** The server's uuid of a local file: itself when pulled, the mapped one when uploaded, null in doubt. */
  remoteFile: (local: string) => string | null;
  /** Whether an upload of this local file was ever attempted (mapped either way). */
  fileMapped: (local: string) => boolean;
  /** Our uuid of a server file. */
  localFile: (remote: string) => string;
}

const only = (r: OdrRecord): OdrRecord => ({ ...r, records: [] });
const itemsOf = (s: FieldState | undefined) => {
  const k = s?.key ?? '';
  const i = k.indexOf(':');
  return i >= 0 && k.slice(i + 1) ? k.slice(i + 1).split(',') : [];
};

/** The operations that make the server's copy of one record equal to ours. */
export function convergeOps(i: ConvergeInput): ConvergeOp[] {
  const out: ConvergeOp[] = [];
  const L = fieldStates(only(i.local));
  const B = i.base ? fieldStates(only(i.base)) : new Map<string, FieldState>();
  for (const k of new Set([...L.keys(), ...B.keys()])) {
    const l = L.get(k);
    const b = B.get(k);
    const field = (l ?? b)!.field;
    // A field hidden here (removed from the server's template) is never cleared there.
    if (!i.live(field) || same(l?.key ?? '', b?.key ?? '')) continue;
    const key = (l ?? b)!.key;
    if (key.startsWith('opts:') || key.startsWith('tags:')) {
      const mine = new Set(itemsOf(l));
      const theirs = new Set(itemsOf(b));
      // Off before on: a one-option field ends with ours.
      for (const x of theirs) if (!mine.has(x)) out.push({ op: 'option', field, item: x, payload: { on: false } });
      for (const x of mine) if (!theirs.has(x)) out.push({ op: 'option', field, item: x, payload: { on: true } });
    } else if (key.startsWith('bool:')) {
      out.push({ op: 'value', field, item: '', payload: { value: l?.entry.selected ?? 0 } });
    } else {
      out.push({ op: 'value', field, item: '', payload: { value: l?.entry.value ?? null } });
    }
  }
  const pub = i.local._record_metadata._public_date;
  if (i.base && pub !== i.base._record_metadata._public_date)
    out.push({ op: 'public', field: '', item: '', payload: { public_date: pub } });

  const mineFiles = serverFiles(only(i.local));
  const baseFiles = i.base ? serverFiles(only(i.base)) : new Map<string, ServerFile>();
  const seen = new Set<string>();
  for (const f of mineFiles.values()) {
    if (!i.live(f.field)) continue;
    const remote = i.remoteFile(f.uuid);
    const there = remote === null ? undefined : baseFiles.get(remote);
    if (there) {
      seen.add(there.uuid);
      if (!sameMeta(f.meta, there.meta)) out.push({ op: 'file_meta', field: f.field, item: f.uuid, payload: null });
    } else if (!i.fileMapped(f.uuid)) {
      // Never on the server (an upload in doubt is settled by its own operation).
      out.push({ op: 'file_upload', field: f.field, item: f.uuid, payload: null });
    }
  }
  for (const f of baseFiles.values()) {
    if (seen.has(f.uuid) || !i.live(f.field)) continue;
    const image = f.entry.width !== undefined;
    const size = f.entry.file_size === undefined ? null : Number(f.entry.file_size);
    out.push({ op: 'file_delete', field: f.field, item: i.localFile(f.uuid), payload: { name: f.entry.original_name, size, image } });
  }
  return out;
}
