import { isPublicAt, PRIVATE_DATE } from '../../../shared/dates.js';
import { renderValue } from '../../../shared/fieldTypes.js';
import type { FieldEntry, FileEntry, OdrRecord, OptionEntry, TagEntry } from '../../../shared/schemas/record.js';
import type { Ctx } from './context.js';
import { seesAll } from './permissions.js';
import type { FileRow, RecordRow, ValueRow } from '../store/rows.js';
import { recordTrees } from '../store/recordTrees.js';
import type { DatatypeInfo, FieldInfo, Schema } from './schemaCache.js';
import type { User } from './users.js';

export interface RenderOptions {
  viewer: User;
  now: string;
  /** Absolute API base for file hrefs, e.g. http://127.0.0.1:8080/api/v4 */
  apiBase: string;
  /**
   * Create, job and public-status responses (seed contract): `_updated_date` instead of
   * `_update_date`, and `record_name` as an integer when it is the record id.
   */
  legacyKeys?: boolean;
}

/**
 * What a render depended on besides the stored rows, for the rendered-record cache: it equals
 * the render for any viewer of the same class who created nothing in the tree, until the next
 * public-date boundary.
 */
export interface RenderTrace {
  topUuid: string;
  /** Users who created a record or file anywhere in the tree (ownership widens their view). */
  creators: Set<number>;
  /** Top-level datasets of the tree's records (their admins see everything). */
  datasets: Set<DatatypeInfo>;
  /** The earliest compared public date still in the future: the render may change then. */
  nextBoundary: string | null;
}

interface Node {
  row: RecordRow;
  dt: DatatypeInfo;
  fields: Map<number, FieldEntry>;
  instance: Map<number, ValueRow>;
  children: Node[];
  restricted: boolean;
  ownsRecord: boolean;
}

/**
 * Builds record JSON for whole record trees with a fixed set of five queries (records, values,
 * option selections, tag selections, files), whatever the number of records or fields.
 */
export class RecordReader {
  private readonly trees: ReturnType<typeof recordTrees>;
  /** Record tree reads so far (one per render set): tests check that pages read in chunks. */
  treeReads = 0;

  constructor(private readonly ctx: Ctx) {
    this.trees = recordTrees(ctx.db);
  }

  /** Renders top-level records (with descendants) in the given order. */
  renderTops(tops: readonly RecordRow[], opts: RenderOptions): OdrRecord[] {
    return this.inChunks(tops, (chunk) => {
      const nodes = this.build(
        chunk.map((t) => t.rid),
        opts,
      );
      return chunk.map((t) => this.toJson(nodes.get(t.rid)!, opts));
    });
  }

  /** Renders one record — top-level or child — with its descendants. */
  renderRecord(rec: RecordRow, opts: RenderOptions): OdrRecord {
    return this.renderTraced(rec, opts).json;
  }

  /** renderRecord, with what the render depended on (for the cache). */
  renderTraced(rec: RecordRow, opts: RenderOptions): { json: OdrRecord; trace: RenderTrace } {
    const later = this.readTraced(rec, opts);
    return { json: later.json(), trace: later.trace };
  }

  /**
   * renderTraced in two steps: the rows are read now (inside a write's transaction, say) and
   * the JSON is assembled from them when `json` is called, which reads nothing.
   */
  readTraced(rec: RecordRow, opts: RenderOptions): { json: () => OdrRecord; trace: RenderTrace } {
    const traces = new Map<number, RenderTrace>();
    const node = this.build([rec.top_rid], opts, traces).get(rec.rid);
    if (!node) throw new Error(`record ${rec.uuid} is not visible under its top-level record`);
    return { json: () => this.toJson(node, opts), trace: traces.get(rec.top_rid)! };
  }

  /** renderTops, with what each render depended on. */
  renderTopsTraced(tops: readonly RecordRow[], opts: RenderOptions): { json: OdrRecord; trace: RenderTrace }[] {
    return this.inChunks(tops, (chunk) => {
      const traces = new Map<number, RenderTrace>();
      const nodes = this.build(
        chunk.map((t) => t.rid),
        opts,
        traces,
      );
      return chunk.map((t) => ({ json: this.toJson(nodes.get(t.rid)!, opts), trace: traces.get(t.rid)! }));
    });
  }

  /**
   * `render` over slices of at most config.renderChunkTops records, results in order: a tree
   * read brings a slice's values as one JSON text, and a page may ask for any number of records.
   */
  private inChunks<T>(tops: readonly RecordRow[], render: (chunk: readonly RecordRow[]) => T[]): T[] {
    const size = Math.max(1, this.ctx.config.renderChunkTops);
    if (tops.length <= size) return tops.length ? render(tops) : [];
    const out: T[] = [];
    for (let i = 0; i < tops.length; i += size) for (const r of render(tops.slice(i, i + size))) out.push(r);
    return out;
  }

  /** All visible nodes of the given record trees, keyed by rid; `traces` is filled per top rid. */
  private build(topRids: number[], opts: RenderOptions, traces?: Map<number, RenderTrace>): Map<number, Node> {
    const schema = this.ctx.schema.get();
    this.treeReads++;
    const tree = this.trees(topRids);
    const topOfRid = new Map<number, number>();
    // Every public-date comparison goes through here, so the trace knows when the answer flips.
    const isPublic = (date: string, topRid: number) => {
      if (isPublicAt(date, opts.now)) return true;
      const t = traces?.get(topRid);
      if (t && date !== PRIVATE_DATE && (t.nextBoundary === null || date < t.nextBoundary)) t.nextBoundary = date;
      return false;
    };

    const nodes = new Map<number, Node>();
    for (const row of tree.records()) {
      const dt = schema.datatypes.get(row.datatype_id)!;
      if (traces) {
        topOfRid.set(row.rid, row.top_rid);
        let t = traces.get(row.top_rid);
        if (!t) traces.set(row.top_rid, (t = { topUuid: '', creators: new Set(), datasets: new Set(), nextBoundary: null }));
        if (row.parent_rid === null) t.topUuid = row.uuid;
        if (row.created_by !== null) t.creators.add(row.created_by);
        t.datasets.add(dt.top);
      }
      const restricted = !seesAll(opts.viewer, dt);
      const node: Node = {
        row,
        dt,
        fields: new Map(),
        instance: new Map(),
        children: [],
        restricted,
        ownsRecord: row.created_by === opts.viewer.id,
      };
      if (row.parent_rid === null) {
        nodes.set(row.rid, node);
        continue;
      }
      const parent = nodes.get(row.parent_rid);
      if (!parent) continue; // under a hidden record
      if (restricted && !node.ownsRecord && !parent.ownsRecord && !isPublic(row.public_date, row.top_rid)) continue;
      node.ownsRecord ||= parent.ownsRecord;
      parent.children.push(node);
      nodes.set(row.rid, node);
    }

    const visible = (node: Node, f: FieldInfo) => !node.restricted || node.ownsRecord || isPublic(f.publicDate, node.row.top_rid);

    for (const v of tree.values()) {
      const node = nodes.get(v.record_rid);
      const f = schema.fields.get(v.datafield_id);
      if (!node || !f || f.removed || !visible(node, f)) continue;
      node.instance.set(f.id, v);
      // A field used on the record appears, option and file kinds with their (maybe empty) list.
      const entry = fieldHead(f, v);
      const s = f.type.storage;
      if (s === 'options') entry.values = [];
      else if (s === 'tags') entry.tags = [];
      else if (s === 'files') entry.files = [];
      else if (s === 'boolean') entry.selected = v.value === 1 || v.value === '1' ? 1 : 0;
      else entry.value = renderValue(f.type, v.value);
      node.fields.set(f.id, entry);
    }

    const sels = tree.selections();
    for (const s of sels) {
      const node = nodes.get(s.record_rid);
      const f = schema.fields.get(s.datafield_id);
      if (!node || !f || f.removed || !visible(node, f)) continue;
      if ((s.is_tag ? schema.tags.get(s.item_id) : schema.options.get(s.item_id))?.removed) continue;
      const entry = this.entryFor(node, f);
      if (s.is_tag) (entry.tags ??= []).push(tagEntry(schema, s.item_id, s.selected_at));
      else (entry.values ??= []).push(optionEntry(schema, s.item_id, s.selected_at));
    }

    const files = tree.files();
    const derivatives = new Map<number, FileRow[]>();
    for (const file of files) {
      if (file.parent_rid !== null) {
        const list = derivatives.get(file.parent_rid);
        if (list) list.push(file);
        else derivatives.set(file.parent_rid, [file]);
      }
    }
    for (const file of files) {
      if (traces && file.created_by !== null) traces.get(topOfRid.get(file.record_rid)!)?.creators.add(file.created_by);
      if (file.parent_rid !== null) continue;
      const node = nodes.get(file.record_rid);
      const f = schema.fields.get(file.datafield_id);
      if (!node || !f || f.removed || !visible(node, f)) continue;
      if (node.restricted && file.created_by !== opts.viewer.id && !isPublic(file.public_date, node.row.top_rid)) continue;
      const entry = this.entryFor(node, f);
      const list = (entry.files ??= []);
      list.push(fileEntry(file, null, opts.apiBase));
      for (const d of derivatives.get(file.rid) ?? []) list.push(fileEntry(d, file, opts.apiBase));
    }

    for (const node of nodes.values()) {
      for (const entry of node.fields.values()) {
        if (entry.values) entry.values.sort(byOrder(schema, 'option'));
        if (entry.tags) entry.tags.sort(byOrder(schema, 'tag'));
      }
      if (node.children.length > 1) sortChildren(node.children);
    }
    return nodes;
  }

  private entryFor(node: Node, f: FieldInfo): FieldEntry {
    let entry = node.fields.get(f.id);
    if (!entry) {
      entry = fieldHead(f, node.instance.get(f.id));
      node.fields.set(f.id, entry);
    }
    return entry;
  }

  private toJson(node: Node, opts: RenderOptions): OdrRecord {
    const { row, dt } = node;
    let name: string | number = String(row.internal_id);
    if (dt.nameFieldId !== null) {
      const v = node.fields.get(dt.nameFieldId)?.value;
      if (v !== undefined && v !== null && v !== '') name = String(v);
    }
    if (opts.legacyKeys && name === String(row.internal_id)) name = row.internal_id;
    const fields = [...node.fields.values()].sort((a, b) => a.id - b.id);
    return {
      database_uuid: dt.uuid,
      internal_id: row.internal_id,
      record_name: name,
      record_uuid: row.uuid,
      template_uuid: dt.masterUuid,
      metadata_for_uuid: dt.metadataForUuid,
      _record_metadata: opts.legacyKeys
        ? { _create_date: row.create_date, _updated_date: row.update_date, _create_auth: row.create_auth, _public_date: row.public_date }
        : { _create_date: row.create_date, _update_date: row.update_date, _create_auth: row.create_auth, _public_date: row.public_date },
      fields,
      records: node.children.map((c) => this.toJson(c, opts)),
    };
  }
}

/**
 * Children grouped by datatype, groups in the order their first record was stored, records in
 * storage order: the order ODR exports use, so an imported tree reads back as exported.
 */
function sortChildren(children: Node[]): void {
  const first = new Map<number, number>();
  for (const c of children) if (!first.has(c.dt.id) || c.row.rid < first.get(c.dt.id)!) first.set(c.dt.id, c.row.rid);
  children.sort((a, b) => first.get(a.dt.id)! - first.get(b.dt.id)! || a.row.rid - b.row.rid);
}

function fieldHead(f: FieldInfo, instance: ValueRow | undefined): FieldEntry {
  return {
    field_name: f.name,
    field_uuid: f.uuid,
    template_field_uuid: f.templateFieldUuid,
    id: f.id,
    _field_metadata: instance
      ? {
          _public_date: f.publicDate,
          _create_date: instance.create_date,
          _update_date: instance.update_date,
          _create_auth: instance.create_auth,
        }
      : { _public_date: f.publicDate },
  };
}

function optionEntry(schema: Schema, id: number, selectedAt: string): OptionEntry {
  const o = schema.options.get(id)!;
  return {
    id: o.id,
    template_radio_option_uuid: o.uuid,
    name: o.name,
    ...(o.userCreated ? { user_created: '1' as const } : {}),
    option_created: o.created,
    option_selected: selectedAt,
    selected: 1,
  };
}

function tagEntry(schema: Schema, id: number, selectedAt: string): TagEntry {
  const t = schema.tags.get(id)!;
  const parent = t.parentId === null ? undefined : schema.tags.get(t.parentId);
  return {
    id: t.id,
    template_tag_uuid: t.uuid,
    ...(parent ? { parent_template_tag_uuid: parent.uuid } : {}),
    name: t.name,
    ...(t.userCreated ? { user_created: '1' as const } : {}),
    tag_created: t.created,
    tag_selected: selectedAt,
    selected: 1,
  };
}

const byOrder = (schema: Schema, kind: 'option' | 'tag') => (a: { id: number }, b: { id: number }) => {
  const pa = kind === 'option' ? schema.options.get(a.id) : schema.tags.get(a.id);
  const pb = kind === 'option' ? schema.options.get(b.id) : schema.tags.get(b.id);
  return (pa?.displayOrder ?? 0) - (pb?.displayOrder ?? 0) || a.id - b.id;
};

/** File and image entries in the real server's key order (docs/odr-server.md §3.2). */
export function fileEntry(file: FileRow, parent: FileRow | null, apiBase: string): FileEntry {
  const meta = parent ?? file;
  const href = file.content_hash !== null || file.source_href === null ? `${apiBase}/file/${file.uuid}` : file.source_href;
  const local = file.content_hash !== null ? {} : { content_local: false };
  if (!file.is_image) {
    return {
      id: file.internal_id,
      file_uuid: file.uuid,
      file_size: String(file.file_size ?? 0),
      href,
      _file_metadata: {
        _external_id: meta.external_id,
        _create_date: meta.create_date,
        _create_auth: meta.create_auth,
        _public_date: meta.public_date,
        _quality: String(meta.quality),
      },
      original_name: file.original_name,
      ...local,
    };
  }
  return {
    _file_metadata: {
      _external_id: meta.external_id,
      _create_date: meta.create_date,
      _create_auth: meta.create_auth,
      _public_date: meta.public_date,
      _display_order: String(meta.display_order),
      _quality: String(meta.quality),
    },
    id: file.internal_id,
    ...(parent ? { parent_image_id: parent.internal_id } : {}),
    file_uuid: file.uuid,
    original_name: meta.original_name,
    href,
    caption: meta.caption,
    width: file.width === null ? '' : String(file.width),
    height: file.height === null ? '' : String(file.height),
    ...local,
  };
}
