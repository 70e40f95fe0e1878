import { checkValue, fieldType, isFieldTypeName, type FieldTypeName } from '../../../../shared/fieldTypes.js';
import { normalizeRecord } from '../../../../shared/legacy.js';
import type { FieldEntry, OdrRecord } from '../../../../shared/schemas/record.js';
import { PRIVATE_DATE } from '../../../../shared/dates.js';
import { SYSTEM_USER, type Domain } from '../domain.js';
import type { RecordRow } from '../../store/rows.js';
import type { DatatypeInfo, FieldInfo, Schema } from '../schemaCache.js';
import type { User } from '../users.js';
import { TemplateWriter } from './importTemplate.js';
import { forbidden } from '../errors.js';
import { editsAll } from '../permissions.js';
import { lostEditRight, RightLost } from './writeRights.js';
import { pulledRecordStore } from '../../store/pulledRecords.js';
import { recordImportStatements, type RecordDataQueue } from '../../store/recordImport.js';
import { itemOwner } from '../../store/newIds.js';
import { WHO } from '../rights.js';

// Writes exported records (with children, values, selections, tags and file metadata) under
// their uuids and ids. Datatypes and fields the template did not declare are created from the
// records' shapes. File bytes are not in exports: file rows keep their metadata and href and
// are marked as not local (content_hash NULL).

export interface RecordImportStats {
  imported: number;
  skipped: number;
  children: number;
  files: number;
  datasets: Map<string, number>;
}

const utf8Len = (s: string) => Buffer.byteLength(s, 'utf8');

function inferType(e: FieldEntry): FieldTypeName {
  if (e.values) return e.values.length > 1 ? 'Multiple Select' : 'Single Select';
  if (e.tags) return 'Tags';
  if (e.files) return e.files.some((f) => f.width !== undefined) ? 'Image' : 'File';
  if (e.selected !== undefined) return 'Boolean';
  if (typeof e.value === 'number') return Number.isInteger(e.value) ? 'Integer' : 'Decimal';
  return typeof e.value === 'string' && utf8Len(e.value) > 255 ? 'Paragraph Text' : 'Long Text';
}

/** The options (`values`) or tags an exported field entry selects, in one shape. */
function selectedItems(
  e: FieldEntry,
  kind: 'option' | 'tag',
): { uuid: string; name: string; id: number; parent?: string; selected?: string }[] {
  if (kind === 'option')
    return (e.values ?? []).map((o) => ({ uuid: o.template_radio_option_uuid, name: o.name, id: o.id, selected: o.option_selected }));
  return (e.tags ?? []).map((t) => ({
    uuid: t.template_tag_uuid,
    name: t.name,
    id: t.id,
    parent: t.parent_template_tag_uuid,
    selected: t.tag_selected,
  }));
}

function storedScalar(type: FieldTypeName, e: FieldEntry): string | number | null {
  const storage = fieldType(type).storage;
  if (storage === 'boolean') return e.selected === 1 ? 1 : 0;
  const v = e.value;
  if (storage === 'integer') {
    if (v === null || v === undefined || v === '') return null;
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isSafeInteger(n) ? n : String(v);
  }
  if (storage === 'decimal') {
    if (v === null || v === undefined || v === '') return null;
    // Stored as the value endpoint stores it, so decimal ranges (the numeric index takes text
    // starting [0-9.+-], migration 012) find it; text that is no number is kept as the file has it.
    const c = checkValue(fieldType(type), typeof v === 'number' ? v : String(v).trim());
    return c.ok ? c.stored : String(v);
  }
  return v === null || v === undefined ? '' : String(v);
}

export class RecordImporter {
  private schema: Schema;
  private readonly tw: TemplateWriter;
  private readonly pulled: ReturnType<typeof pulledRecordStore>;
  private readonly s: ReturnType<typeof recordImportStatements>;
  /** The current tree's values and selections, written at its end (or before anything reads them). */
  private readonly q: RecordDataQueue;
  /** Per datatype: the fields whose value equals every named record's record_name. */
  private readonly nameCandidates = new Map<number, Set<number> | null>();
  private readonly inferred = new Set<number>();
  readonly stats: RecordImportStats = { imported: 0, skipped: 0, children: 0, files: 0, datasets: new Map() };
  /** What a restore left out because the template no longer has it ("field <uuid>", "option <uuid>", ...). */
  private readonly dropped: string[] = [];
  /** The user as of the previous batch (rereadUser): what they could do tells a lost right from one never held. */
  private held: User | undefined;

  constructor(
    private readonly d: Domain,
    private user: User,
    private readonly replace: boolean,
    /**
     * A restore from the record trash (domain/records/trash.ts), which checked the user's right
     * to the record itself (its creator may restore it); the restored record takes its storage
     * row back when it is free (a child's only above its parent's). A restore never writes the
     * template (its caller may be no admin): values under fields, options, tags or child
     * datasets gone from it are dropped (kept when the removed row is still there), and `logged`
     * hears which before the import's own log entry.
     */
    private readonly restore?: { ridOf: (uuid: string) => number | undefined; logged: (dropped: string[]) => void },
  ) {
    this.schema = d.schema();
    this.tw = new TemplateWriter(d);
    this.pulled = pulledRecordStore(d.ctx.db);
    this.s = recordImportStatements(d.ctx.db);
    this.q = this.s.queue();
  }

  /**
   * Before each batch of a long import: the user read again (a role revoked or a super-user
   * demoted since the last batch counts from this one on) and the schema as it is now. Writes
   * then refused for a right the last batch still had stop the import with RightLost.
   */
  rereadUser(): void {
    const now = this.d.users.now(this.user);
    this.held = this.user;
    this.user = now;
    this.schema = this.d.schema();
  }

  private refresh(): void {
    this.d.ctx.schema.changed();
    this.schema = this.d.schema();
  }

  /** Field types by uuid, for normalising legacy value shapes. */
  typesByUuid(): Map<string, FieldTypeName> {
    const m = new Map<string, FieldTypeName>();
    for (const f of this.schema.fields.values()) if (isFieldTypeName(f.fieldtype)) m.set(f.uuid, f.fieldtype);
    return m;
  }

  /** Imports one top-level record from export JSON; call inside a transaction. */
  importTop(raw: unknown, types: Map<string, FieldTypeName>): void {
    this.importNormalized(normalizeRecord(raw, types));
  }

  /** The same for a record already normalised (a sync pull's server copy: normalised as read). */
  importNormalized(rec: OdrRecord): void {
    try {
      this.importTree(rec);
    } finally {
      // A failure rolls the transaction back: nothing queued may reach the next tree.
      this.q.discard();
    }
  }

  /**
   * A restore's child record (with its own children) put back under `parent`; call inside a
   * transaction. Logged as an import of the child within its top-level record's tree.
   */
  importChild(raw: unknown, types: Map<string, FieldTypeName>, parent: RecordRow): void {
    try {
      const row = this.insertTree(normalizeRecord(raw, types), parent, this.d.datatypeOf(parent));
      this.q.flush();
      this.stats.imported++;
      const top = this.d.store.topOf(parent);
      this.restore?.logged(this.dropped);
      this.d.log.append(this.d.now(), {
        op: 'record.import',
        userId: this.user.id,
        datasetUuid: this.d.datatypeOf(top).uuid,
        recordUuid: row.uuid,
        topRecordUuid: top.uuid,
      });
    } finally {
      this.q.discard();
    }
  }

  private importTree(rec: OdrRecord): void {
    const existing = this.d.store.byUuid(rec.record_uuid);
    if (existing && !this.replace) {
      this.stats.skipped++;
      return;
    }
    // Writing into a dataset that exists already needs the right to edit all of it (as a CSV
    // import does); a new dataset is the importer's own.
    const into = this.schema.datatypesByUuid.get(rec.database_uuid);
    if (into && !this.restore) this.assertMayWrite(into);
    if (existing) this.assertMayWrite(this.d.datatypeOf(existing));
    // Replaced in place: the record keeps its row, so a pull never moves it in any list.
    if (existing && existing.parent_rid !== null) this.d.store.delete(existing.rid, this.d.now());
    const row = existing && existing.parent_rid === null ? this.overwriteTree(rec, existing, null) : this.insertTree(rec, null, null);
    this.q.flush();
    this.stats.imported++;
    const ds = this.d.datatypeOf(row).uuid;
    this.stats.datasets.set(ds, (this.stats.datasets.get(ds) ?? 0) + 1);
    this.restore?.logged(this.dropped);
    this.d.log.append(this.d.now(), {
      op: 'record.import',
      userId: this.user.id,
      datasetUuid: ds,
      recordUuid: row.uuid,
      topRecordUuid: row.uuid,
    });
  }

  private assertMayWrite(dt: DatatypeInfo): void {
    if (editsAll(this.user, dt)) return;
    if (this.held && editsAll(this.held, dt)) throw new RightLost(lostEditRight(this.held, this.user, dt));
    throw forbidden(`You may not import records into dataset ${dt.top.uuid}: only ${WHO.editsAll} can.`);
  }

  private datatypeFor(rec: OdrRecord, parentDt: DatatypeInfo | null): DatatypeInfo {
    let dt = this.schema.datatypesByUuid.get(rec.database_uuid);
    if (this.restore) {
      if (!dt) throw new Error(`restore: dataset ${rec.database_uuid} is unknown`); // callers check first
      return dt;
    }
    if (!dt) {
      const at = this.d.now();
      this.s.insDt.run(
        rec.database_uuid,
        parentDt?.id ?? null,
        `Dataset ${rec.database_uuid}`,
        rec.template_uuid,
        rec.metadata_for_uuid,
        parentDt ? null : this.user.id,
        parentDt ? parentDt.children.length : 0,
        rec._record_metadata._create_date || at,
        rec._record_metadata._create_auth || this.user.display,
        rec._record_metadata._public_date || at,
        at,
      );
      this.refresh();
      dt = this.schema.datatypesByUuid.get(rec.database_uuid)!;
    } else if (rec.template_uuid && !dt.masterUuid) {
      this.s.setMaster.run(rec.template_uuid, dt.id);
      this.refresh();
      dt = this.schema.datatypesByUuid.get(rec.database_uuid)!;
    }
    return dt;
  }

  private fieldFor(dt: DatatypeInfo, e: FieldEntry): FieldInfo | null {
    let f =
      dt.fieldsByUuid.get(e.field_uuid) ??
      (e.template_field_uuid ? dt.fields.find((x) => x.templateFieldUuid === e.template_field_uuid) : undefined);
    if (!f && this.restore) {
      // A field removed since the delete keeps the value under its row (shown again if it comes back).
      const removed = [...this.schema.fields.values()].find((x) => x.datatypeId === dt.id && x.uuid === e.field_uuid);
      if (!removed) this.dropped.push(`field ${e.field_uuid}`);
      return removed ?? null;
    }
    if (!f) {
      const type = inferType(e);
      const at = this.d.now();
      const id = this.tw.field(
        {
          internal_id: e.id,
          name: e.field_name,
          description: null,
          fieldtype: type,
          field_uuid: e.field_uuid,
          template_field_uuid: e.template_field_uuid,
          updated_at: at,
          _field_metadata: {
            _create_date: at,
            _create_auth: this.user.display,
            _public_date: e._field_metadata?._public_date ?? PRIVATE_DATE,
            _master_published_version: '0',
            _master_revision: '0',
            _tracking_master_version: '0',
          },
        },
        dt.id,
        dt.fields.length,
      );
      this.inferred.add(id);
      this.refresh();
      f = this.schema.fields.get(id)!;
    } else if (this.inferred.has(f.id) && f.type.single && e.values && e.values.length > 1) {
      this.s.setFieldType.run('Multiple Select', f.id);
      this.refresh();
      f = this.schema.fields.get(f.id)!;
    }
    return f;
  }

  private metaOf(rec: OdrRecord) {
    const m = rec._record_metadata;
    const at = this.d.now();
    return {
      createDate: m._create_date || at,
      updateDate: m._update_date || m._create_date || at,
      createAuth: m._create_auth || this.user.display,
      publicDate: m._public_date || PRIVATE_DATE,
    };
  }

  private insertTree(rec: OdrRecord, parent: RecordRow | null, parentDt: DatatypeInfo | null): RecordRow {
    const dt = this.datatypeFor(rec, parentDt);
    // A restored record takes its old row back (its place among its siblings, which the reader
    // orders by rid), a child's only above its parent's: a parent's rid is below its children's.
    const kept = this.restore?.ridOf(rec.record_uuid);
    const row = this.d.store.insert({
      uuid: rec.record_uuid,
      internalId: rec.internal_id || undefined,
      rid: kept !== undefined && (!parent || kept > parent.rid) ? kept : undefined,
      datatypeId: dt.id,
      parent,
      createdBy: this.user.id,
      ...this.metaOf(rec),
    });
    if (parent) this.stats.children++;
    this.writeFields(rec, row, dt);
    for (const c of rec.records) {
      if (this.restore && !this.schema.datatypesByUuid.has(c.database_uuid)) {
        this.dropped.push(`record ${c.record_uuid}`);
        continue;
      }
      this.insertTree(c, row, this.schema.datatypes.get(dt.id)!);
    }
    return row;
  }

  /**
   * A stored record made equal to `rec` keeping its row (and those of its children still listed):
   * data cleared and written again, children no longer listed deleted, new ones added.
   */
  private overwriteTree(rec: OdrRecord, row: RecordRow, parentDt: DatatypeInfo | null): RecordRow {
    const dt = this.datatypeFor(rec, parentDt);
    const m = this.metaOf(rec);
    this.q.flush(); // reset clears the record's data: queued rows of it (a uuid twice in a tree) go first
    this.pulled.reset(row.rid, m);
    const now: RecordRow = {
      ...row,
      create_date: m.createDate,
      update_date: m.updateDate,
      create_auth: m.createAuth,
      public_date: m.publicDate,
    };
    this.writeFields(rec, now, dt);
    const had = new Map(this.pulled.children(row.rid).map((c) => [c.uuid, c]));
    const childDt = this.schema.datatypes.get(dt.id)!;
    for (const c of rec.records) {
      const mine = had.get(c.record_uuid);
      had.delete(c.record_uuid);
      if (mine) {
        this.overwriteTree(c, this.d.store.byRid(mine.rid)!, childDt);
        this.stats.children++;
        continue;
      }
      const elsewhere = this.d.store.byUuid(c.record_uuid);
      if (elsewhere) {
        this.q.flush();
        this.d.store.delete(elsewhere.rid, this.d.now()); // moved under another parent on the server
      }
      this.insertTree(c, now, childDt);
    }
    // Logged like a user's delete: a synced record's push then deletes it on the server too
    // (a pull's own entries are origin 'sync' and are never pushed back).
    for (const gone of had.values()) this.deleteLogged(gone.rid);
    return now;
  }

  private deleteLogged(rid: number): void {
    this.q.flush(); // the render below reads the stored rows
    const rec = this.d.store.byRid(rid)!;
    const at = this.d.now();
    const old = this.d.render(rec, { viewer: SYSTEM_USER, now: at, apiBase: '' });
    this.d.logRecordChange(at, this.user, rec, { op: 'record.delete', old, new: null });
    this.d.store.delete(rid, at);
  }

  private writeFields(rec: OdrRecord, row: RecordRow, recDt: DatatypeInfo): void {
    let dt = recDt;
    const named = typeof rec.record_name === 'string' && rec.record_name !== '' && rec.record_name !== String(rec.internal_id);
    const matching = new Set<number>();
    for (const e of rec.fields) {
      const f = this.fieldFor(dt, e);
      if (!f) continue;
      dt = this.schema.datatypes.get(dt.id)!; // refreshed if the field was new
      const fm = e._field_metadata;
      const created = fm?._create_date || row.create_date;
      const updated = fm?._update_date || row.update_date;
      const auth = fm?._create_auth || row.create_auth;
      const storage = f.type.storage;
      if (storage === 'options' || storage === 'tags') {
        const kind = storage === 'options' ? 'option' : 'tag';
        const field = this.schema.fields.get(f.id)!;
        for (const it of selectedItems(e, kind)) {
          const known = (kind === 'option' ? field.optionsByUuid : field.tagsByUuid).get(it.uuid)?.id;
          const id = this.restore
            ? this.restoredItem(kind, f, it.uuid)
            : known === undefined
              ? kind === 'option'
                ? this.newOption(f, it.uuid, it.name, it.id)
                : this.newTag(f, it.uuid, it.name, it.parent)
              : this.adoptId(kind, f.id, it.uuid, known, it.id);
          if (id === null) continue;
          if (kind === 'option') this.q.option(row.rid, id, f.id, it.selected ?? updated);
          else this.q.tag(row.rid, id, f.id, it.selected ?? updated);
        }
      } else if (storage === 'files') {
        this.insertFiles(row, f, e);
      }
      const value =
        storage === 'options' || storage === 'tags' || storage === 'files' || storage === 'readonly'
          ? null
          : storedScalar(f.fieldtype as FieldTypeName, e);
      this.q.value(row.rid, f.id, value, created, updated, auth, row.create_auth);
      if (named && value === rec.record_name) matching.add(f.id);
    }
    if (named) {
      const prev = this.nameCandidates.get(dt.id);
      this.nameCandidates.set(
        dt.id,
        prev === undefined ? matching : prev === null ? null : new Set([...prev].filter((x) => matching.has(x))),
      );
    }
  }

  /** A restore's option or tag: its row (removed ones too), or null when gone (dropped). */
  private restoredItem(kind: 'option' | 'tag', f: FieldInfo, uuid: string): number | null {
    const items: Iterable<{ id: number; fieldId: number; uuid: string }> =
      kind === 'option' ? this.schema.options.values() : this.schema.tags.values();
    for (const it of items) if (it.fieldId === f.id && it.uuid === uuid) return it.id;
    this.dropped.push(`${kind} ${uuid}`);
    return null;
  }

  /**
   * Legacy template exports carry no option or tag ids; record exports do. When the record's id
   * for an option/tag is free, the stored one takes it, so reads show the server's ids.
   */
  private adoptId(kind: 'option' | 'tag', fieldId: number, uuid: string, current: number, exported: number): number {
    if (!(exported > 0) || exported === current) return current;
    const free = kind === 'option' ? this.s.optionIdFree : this.s.tagIdFree;
    if (!free.get({ id: exported, owner: itemOwner(fieldId, uuid) })) return current;
    this.q.flush(); // the re-key below moves stored selections only
    this.s.deferFks.run();
    if (kind === 'option') {
      this.s.rekeyOption.run(exported, current);
      this.s.rekeyOptionSel.run(exported, current);
    } else {
      this.s.rekeyTag.run(exported, current);
      this.s.rekeyTagParent.run(exported, current);
      this.s.rekeyTagSel.run(exported, current);
    }
    this.refresh();
    return exported;
  }

  private newOption(f: FieldInfo, uuid: string, name: string, id: number): number {
    const optionId = this.tw.option(f.id, uuid, name, f.options.length, '', id);
    this.refresh();
    return optionId;
  }

  private newTag(f: FieldInfo, uuid: string, name: string, parentUuid: string | undefined): number {
    const field = this.schema.fields.get(f.id)!;
    const parent = parentUuid ? (field.tagsByUuid.get(parentUuid)?.id ?? null) : null;
    const tagId = this.tw.tag(f.id, uuid, name, parent, field.tagsByUuid.size, '');
    this.refresh();
    return tagId;
  }

  private insertFiles(row: RecordRow, f: FieldInfo, e: FieldEntry): void {
    const byExportId = new Map<number, number>();
    const seen = new Set<string>();
    for (const file of e.files ?? []) {
      if (seen.has(file.file_uuid) || this.s.fileExists.get(file.file_uuid)) continue;
      seen.add(file.file_uuid);
      const meta = file._file_metadata ?? {};
      // The source's id when no row holds it now, even a deleted file's (a restore's file gets
      // its own old id back that way, or a new one if an import or pull has since brought it).
      const free = file.id > 0 && this.s.fileIdFree.get({ id: file.id, owner: file.file_uuid });
      const internalId = free ? file.id : this.s.nextFileId.get()!;
      const isImage = f.fieldtype === 'Image' || file.width !== undefined;
      const parentRid = file.parent_image_id !== undefined ? (byExportId.get(file.parent_image_id) ?? null) : null;
      const info = this.s.insFile.run(
        internalId,
        file.file_uuid,
        row.rid,
        f.id,
        isImage ? 1 : 0,
        parentRid,
        file.original_name,
        file.file_size !== undefined && /^\d+$/.test(file.file_size) ? Number(file.file_size) : null,
        file.width && /^\d+$/.test(file.width) ? Number(file.width) : null,
        file.height && /^\d+$/.test(file.height) ? Number(file.height) : null,
        file.caption ?? '',
        meta._external_id ?? '',
        file.href || null,
        meta._display_order && /^-?\d+$/.test(meta._display_order) ? Number(meta._display_order) : 0,
        meta._quality && /^-?\d+$/.test(meta._quality) ? Number(meta._quality) : 0,
        this.user.id,
        meta._create_date || row.create_date,
        meta._create_auth || row.create_auth,
        meta._public_date || row.public_date,
      );
      byExportId.set(file.id, Number(info.lastInsertRowid));
      this.stats.files++;
    }
  }

  /** After the last batch: record names come from the field every named record agrees with. */
  finish(): void {
    let changed = false;
    for (const [dtId, candidates] of this.nameCandidates) {
      const dt = this.schema.datatypes.get(dtId);
      if (!dt || dt.nameFieldId !== null || !candidates || candidates.size === 0) continue;
      const pick = dt.fields.find((f) => candidates.has(f.id));
      if (pick) {
        this.s.setNameField.run(pick.id, dtId);
        changed = true;
      }
    }
    if (changed) this.refresh();
  }
}
