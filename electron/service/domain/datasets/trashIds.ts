import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { itemOwner } from '../../store/newIds.js';
import { retiredIdsStore, type RetiredId } from '../../store/retiredIds.js';
import type { Domain } from '../domain.js';
import { jsonArrayElements } from '../import/jsonElements.js';
import { tx } from '../tx.js';

// A dataset deleted before migration 028 gave up its ids without a trace in `retired_ids`: they
// are only in its trash entry (the export and meta.json), so a template or record import made
// after the upgrade could take them, and the entry's restore then got new ones. Once per
// database, at start-up, every trash entry's ids are retired for their owners (as the delete
// triggers would have); entries made since are retired already and change nothing.

interface TemplateNode {
  template_uuid?: string;
  internal_id?: number;
  fields?: { field_uuid?: string; internal_id?: number; tags?: TagNode[] }[];
  related_databases?: TemplateNode[];
}
interface TagNode {
  id?: string;
  template_tag_uuid?: string;
  tags?: TagNode[];
}
interface RecordNode {
  record_uuid?: string;
  internal_id?: number;
  fields?: { files?: { id?: number; file_uuid?: string }[]; images?: { id?: number; file_uuid?: string }[] }[];
  records?: RecordNode[];
}

/** Records of a records.json read per batch: its own transaction each (a 2M-record entry is never held whole). */
const BATCH = 5000;

export async function retireTrashedDatasetIds(d: Domain): Promise<void> {
  const store = retiredIdsStore(d.ctx.db);
  if (store.trashDone()) return;
  const root = path.join(d.ctx.dataDir, 'trash');
  for (const name of existsSync(root) ? readdirSync(root) : []) {
    const dir = path.join(root, name);
    const meta = readJson(path.join(dir, 'meta.json')) as { option_ids?: Record<string, Record<string, number>> } | null;
    const template = readJson(path.join(dir, 'template.json')) as TemplateNode | null;
    if (!meta || !template) continue; // a half-written entry (crash during its delete): no dataset left it
    const rows: RetiredId[] = [];
    schemaIds(template, meta.option_ids ?? {}, rows);
    tx(d.ctx, () => store.retire(rows));
    try {
      await retireRecordIds(d, path.join(dir, 'records.json'));
    } catch (e) {
      // An export no reader takes (its restore fails the same way): what was read is kept.
      console.warn(`[odr] trash entry ${name}: its records' ids not all retired: ${(e as Error).message}`);
    }
  }
  // Set after every entry: a start-up stopped before it does them again (the inserts keep what is there).
  tx(d.ctx, () => store.markTrashDone());
}

async function retireRecordIds(d: Domain, file: string): Promise<void> {
  const store = retiredIdsStore(d.ctx.db);
  let batch: RetiredId[] = [];
  for await (const rec of jsonArrayElements(file)) {
    recordIds(rec as RecordNode, batch);
    if (batch.length < BATCH) continue;
    const full = batch;
    tx(d.ctx, () => store.retire(full));
    batch = [];
  }
  tx(d.ctx, () => store.retire(batch));
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Datatypes, fields, tags (by their field's id, as the triggers own them) and options (their ids kept in meta.json). */
function schemaIds(t: TemplateNode, optionIds: Record<string, Record<string, number>>, out: RetiredId[]): void {
  if (t.template_uuid && t.internal_id) out.push({ tbl: 'datatypes', id: t.internal_id, owner: t.template_uuid });
  for (const f of t.fields ?? []) {
    if (!f.field_uuid || !f.internal_id) continue;
    const fieldId = f.internal_id;
    out.push({ tbl: 'datafields', id: fieldId, owner: f.field_uuid });
    for (const [uuid, id] of Object.entries(optionIds[f.field_uuid] ?? {}))
      out.push({ tbl: 'radio_options', id, owner: itemOwner(fieldId, uuid) });
    const tag = (g: TagNode) => {
      if (g.template_tag_uuid && g.id && /^\d+$/.test(g.id))
        out.push({ tbl: 'tags', id: Number(g.id), owner: itemOwner(fieldId, g.template_tag_uuid) });
      g.tags?.forEach(tag);
    };
    f.tags?.forEach(tag);
  }
  for (const c of t.related_databases ?? []) schemaIds(c, optionIds, out);
}

/** A record's internal id and its files' ids, children included. */
function recordIds(r: RecordNode, out: RetiredId[]): void {
  if (r.record_uuid && r.internal_id) out.push({ tbl: 'records', id: r.internal_id, owner: r.record_uuid });
  for (const e of r.fields ?? [])
    for (const f of [...(e.files ?? []), ...(e.images ?? [])])
      if (f.file_uuid && f.id) out.push({ tbl: 'files', id: f.id, owner: f.file_uuid });
  for (const c of r.records ?? []) recordIds(c, out);
}
