import type { FileEntry, OdrRecord } from '../../../shared/schemas/record.js';
import type { ConflictDraft } from '../store/syncState.js';

// Files in the three-way merge (docs/sync.md §8), with no I/O. Files are compared per record and
// field by identity (the server's file uuid), never by content: a file is added, deleted, or has
// its public date, quality or display order changed. Derived images (thumbnails) follow their
// original and are never compared on their own.

/** What a push or pull may change about a file besides adding or deleting it. */
export interface FileMeta {
  public_date: string;
  quality: number;
  display_order: number;
}

/** An original file or image as the server lists it, with its thumbnails. */
export interface ServerFile {
  record: string;
  field: string;
  fieldName: string;
  uuid: string;
  entry: FileEntry;
  thumbs: FileEntry[];
  meta: FileMeta;
}

/** A file here: its uuid, the server's uuid it is bound to (null while an upload is in doubt). */
export interface LocalFile {
  record: string;
  field: string;
  uuid: string;
  remote: string | null;
  name: string;
  image: boolean;
  meta: FileMeta;
}

export type FileAction =
  | { kind: 'add'; file: ServerFile }
  | { kind: 'meta'; local: LocalFile; file: ServerFile }
  | { kind: 'delete'; local: LocalFile }
  | { kind: 'conflict'; local: LocalFile; draft: ConflictDraft }
  /** Deleted here (the delete not sent yet), changed on the server since the base. */
  | { kind: 'deleteConflict'; local: string; file: ServerFile; draft: ConflictDraft }
  /** Public date, quality or display order changed on both sides, differently. */
  | { kind: 'metaConflict'; local: LocalFile; file: ServerFile; draft: ConflictDraft };

/** The conflict of a file whose metadata changed here and on the server since `base`. */
export function metaConflict(
  l: { record: string; field: string; name: string; meta: FileMeta },
  fieldName: string,
  base: FileMeta,
  theirs: FileMeta,
): ConflictDraft {
  return {
    record: l.record,
    field: l.field,
    name: `${fieldName}: ${l.name}`,
    base: describeMeta(l.name, base),
    mine: describeMeta(l.name, l.meta),
    theirs: describeMeta(l.name, theirs),
  };
}

const int = (s: string | undefined) => (s !== undefined && /^-?\d+$/.test(s) ? Number(s) : 0);

export function metaOf(e: FileEntry, image: boolean): FileMeta {
  const m = e._file_metadata ?? {};
  return { public_date: m._public_date ?? '', quality: int(m._quality), display_order: image ? int(m._display_order) : 0 };
}

export const sameMeta = (a: FileMeta, b: FileMeta) =>
  a.public_date === b.public_date && a.quality === b.quality && a.display_order === b.display_order;

/** How a file's metadata reads in the conflicts view. */
export function describeMeta(name: string, m: FileMeta): string {
  const pub = m.public_date.startsWith('2200-01-01') ? 'not public' : `public since ${m.public_date}`;
  return `${name}: ${pub}, quality ${m.quality}${m.display_order ? `, order ${m.display_order}` : ''}`;
}

/** Every original file of a record tree (children too), keyed by the server's file uuid. */
export function serverFiles(rec: OdrRecord, out = new Map<string, ServerFile>()): Map<string, ServerFile> {
  for (const f of rec.fields) {
    const files = f.files ?? [];
    const thumbsOf = new Map<number, FileEntry[]>();
    for (const e of files) {
      if (e.parent_image_id === undefined) continue;
      thumbsOf.set(e.parent_image_id, [...(thumbsOf.get(e.parent_image_id) ?? []), e]);
    }
    for (const e of files) {
      if (e.parent_image_id !== undefined) continue;
      const image = e.width !== undefined;
      out.set(e.file_uuid, {
        record: rec.record_uuid,
        field: f.field_uuid,
        fieldName: f.field_name,
        uuid: e.file_uuid,
        entry: e,
        thumbs: thumbsOf.get(e.id) ?? [],
        meta: metaOf(e, image),
      });
    }
  }
  for (const c of rec.records ?? []) serverFiles(c, out);
  return out;
}

export interface FileMergeInput {
  /** The server's copy (record uuids ours, file uuids the server's). */
  theirs: OdrRecord;
  base: OdrRecord | null;
  /** Original files here, under the same records. */
  local: LocalFile[];
  /** Local files with an unsent or conflicting operation. */
  pending: Set<string>;
  /** Our uuid of a server file (itself unless uploaded from here). */
  localOf: (remote: string) => string;
}

/**
 * What a server copy changes about the files here. Added on the server: added here, unless a
 * delete of it is waiting here or an upload in doubt may be it. Deleted on the server: deleted
 * here, unless it was changed here too (a conflict: never a silent loss). Metadata changed on
 * the server: applied, unless a change of it is waiting here: then, if ours differs, a conflict.
 */
export function mergeFiles(input: FileMergeInput): FileAction[] {
  const theirs = serverFiles(input.theirs);
  const base = input.base ? serverFiles(input.base) : new Map<string, ServerFile>();
  const byRemote = new Map(input.local.filter((l) => l.remote !== null).map((l) => [l.remote!, l]));
  const inDoubt = input.local.filter((l) => l.remote === null);
  const out: FileAction[] = [];
  for (const t of theirs.values()) {
    const l = byRemote.get(t.uuid);
    if (l) {
      if (sameMeta(l.meta, t.meta)) continue;
      const b = base.get(t.uuid);
      if (!input.pending.has(l.uuid)) out.push({ kind: 'meta', local: l, file: t });
      else if (b && !sameMeta(b.meta, t.meta))
        out.push({ kind: 'metaConflict', local: l, file: t, draft: metaConflict(l, t.fieldName, b.meta, t.meta) });
      continue;
    }
    const gone = input.localOf(t.uuid);
    if (input.pending.has(gone)) {
      // Its delete waits here. Changed on the server meanwhile: the person chooses, as when the
      // push finds it so (the base moves on below, so the push could no longer tell).
      const b = base.get(t.uuid);
      if (b && !sameMeta(b.meta, t.meta)) {
        const name = t.entry.original_name;
        out.push({
          kind: 'deleteConflict',
          local: gone,
          file: t,
          draft: {
            record: t.record,
            field: t.field,
            name: `${t.fieldName}: ${name}`,
            base: describeMeta(name, b.meta),
            mine: 'deleted here',
            theirs: `changed on the server (${describeMeta(name, t.meta)})`,
          },
        });
      }
      continue;
    }
    if (inDoubt.some((u) => u.record === t.record && u.field === t.field && u.name === t.entry.original_name)) continue;
    out.push({ kind: 'add', file: t });
  }
  for (const b of base.values()) {
    if (theirs.has(b.uuid)) continue;
    const l = byRemote.get(b.uuid);
    if (!l) continue;
    if (!input.pending.has(l.uuid)) {
      out.push({ kind: 'delete', local: l });
      continue;
    }
    out.push({
      kind: 'conflict',
      local: l,
      draft: {
        record: l.record,
        field: l.field,
        name: `${b.fieldName}: ${l.name}`,
        base: describeMeta(l.name, b.meta),
        mine: `changed here (${describeMeta(l.name, l.meta)})`,
        theirs: 'deleted on the server',
      },
    });
  }
  return out;
}
