import { PRIVATE_DATE } from '../../../../shared/dates.js';
import type { Domain } from '../domain.js';
import { badRequest, notFound } from '../errors.js';
import { newUuid } from '../ids.js';
import { assertEdit, canRead, editableRecord } from '../access.js';
import { seesAll } from '../permissions.js';
import { parseDateOrThrow } from '../records/ops.js';
import type { FileRow, RecordRow } from '../../store/rows.js';
import type { DatatypeInfo, FieldInfo } from '../schemaCache.js';
import type { User } from '../users.js';
import { isPublicAt } from '../../../../shared/dates.js';
import { fileStore } from '../../store/files.js';
import { withArticle } from '../../../../shared/article.js';

/** Where an upload goes, from POST /file's form fields (docs/odr-server.md §5.14). */
export interface UploadTarget {
  dt: DatatypeInfo;
  rec: RecordRow;
  field: FieldInfo;
  created: string | undefined;
  publicDate: string;
  displayOrder: number;
  quality: number;
}

export interface UploadForm {
  dataset_uuid?: string;
  record_uuid?: string;
  template_field_uuid?: string;
  field_uuid?: string;
  created?: string;
  public_date?: string;
  display_order?: string;
  quality?: string;
  user_email?: string;
}

const intField = (raw: string | undefined, key: string): number => {
  if (raw === undefined || raw === '') return 0;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`${key} must be an integer, not "${raw}"`);
  return Number(raw);
};

/** Resolves and checks the target before any bytes are kept: errors in the reference's order. */
export function resolveUploadTarget(d: Domain, user: User, form: UploadForm): UploadTarget {
  if (!form.dataset_uuid) throw badRequest('dataset_uuid is required');
  const dt = d.datatype(form.dataset_uuid);
  if (!form.record_uuid) throw badRequest('record_uuid is required');
  const rec = editableRecord(d, user, form.record_uuid);
  if (rec.datatype_id !== dt.id)
    throw badRequest(
      `Record ${rec.uuid} is not a record of datatype ${dt.uuid} (give the record's own datatype, a child datatype for a child record)`,
    );
  const fieldKey = form.template_field_uuid || form.field_uuid;
  if (!fieldKey) throw badRequest('template_field_uuid or field_uuid is required');
  const field = dt.fields.find((f) => f.templateFieldUuid === fieldKey) ?? dt.fields.find((f) => f.uuid === fieldKey);
  if (!field) throw notFound('Datafield');
  if (field.type.storage !== 'files')
    throw badRequest(`Field ${field.uuid} "${field.name}" is ${withArticle(field.fieldtype)} field, not a File or Image field`);
  const displayOrder = intField(form.display_order, 'display_order');
  if (form.display_order && field.type.name !== 'Image') throw badRequest('display_order applies to images only');
  return {
    dt,
    rec,
    field,
    created: form.created ? parseDateOrThrow(d, form.created, 'created') : undefined,
    publicDate: form.public_date ? parseDateOrThrow(d, form.public_date, 'public_date') : PRIVATE_DATE,
    displayOrder,
    quality: intField(form.quality, 'quality'),
  };
}

/** One upload's bytes, already at their content address. */
export interface StoredUpload {
  name: string;
  hash: string;
  size: number;
  mime: string;
  image: { width: number; height: number; thumb: { hash: string; size: number; width: number; height: number; mime: string } } | null;
}

/** Inserts the file rows (an image with its thumbnail) in the caller's transaction. */
export function insertUploads(d: Domain, user: User, t: UploadTarget, uploads: StoredUpload[]): FileRow[] {
  const at = d.now();
  const created = t.created ?? at;
  const files = fileStore(d.ctx.db);
  const rows: FileRow[] = [];
  for (const u of uploads) {
    const isImage = u.image !== null;
    const common = {
      recordRid: t.rec.rid,
      fieldId: t.field.id,
      isImage,
      originalName: u.name,
      displayOrder: t.displayOrder,
      quality: t.quality,
      createdBy: user.id,
      createDate: created,
      createAuth: user.display,
      publicDate: t.publicDate,
    };
    const row = files.insert({
      ...common,
      uuid: newUuid(),
      parentRid: null,
      contentHash: u.hash,
      fileSize: u.size,
      mime: u.mime,
      width: u.image?.width ?? null,
      height: u.image?.height ?? null,
    });
    rows.push(row);
    if (u.image) {
      const th = u.image.thumb;
      files.insert({
        ...common,
        uuid: newUuid(),
        parentRid: row.rid,
        contentHash: th.hash,
        fileSize: th.size,
        mime: th.mime,
        width: th.width,
        height: th.height,
      });
    }
    d.logRecordChange(at, user, t.rec, {
      op: 'file.add',
      fieldUuid: t.field.uuid,
      itemUuid: row.uuid,
      new: { original_name: u.name, file_size: u.size, content_hash: u.hash, image: isImage, public_date: t.publicDate },
    });
  }
  d.store.touchInstance(t.rec.rid, t.field.id, at, user.display);
  d.store.touch(t.rec.rid, at);
  return rows;
}

export interface FileDeleteOutcome {
  rec: RecordRow;
  orphanCandidates: string[];
}

/** DELETE /file/{uuid}: a file, or an image (any of its derivatives given) with all derivatives. */
export function deleteFile(d: Domain, user: User, uuid: string): FileDeleteOutcome {
  const files = fileStore(d.ctx.db);
  let file = d.store.fileByUuid(uuid);
  if (!file) throw notFound('File');
  if (file.parent_rid !== null) file = files.byRid(file.parent_rid);
  if (!file) throw notFound('File');
  const rec = d.store.byRid(file.record_rid);
  if (!rec) throw notFound('File');
  assertEdit(d, user, rec);
  const family = files.family(file.rid);
  const at = d.now();
  files.deleteFamily(file.rid);
  const f = d.schema().fields.get(file.datafield_id)!;
  d.logRecordChange(at, user, rec, {
    op: 'file.delete',
    fieldUuid: f.uuid,
    itemUuid: file.uuid,
    old: { original_name: file.original_name, file_size: file.file_size, content_hash: file.content_hash, image: file.is_image === 1 },
  });
  d.store.touchInstance(rec.rid, f.id, at, user.display);
  d.store.touch(rec.rid, at);
  return { rec, orphanCandidates: family.flatMap((x) => (x.content_hash ? [x.content_hash] : [])) };
}

/**
 * Who may download: public files to anyone who can see the record; non-public ones to their
 * owner, the dataset's admins and super-users. Everyone else gets the same 404 as for a file
 * that does not exist, so private uuids cannot be probed.
 */
export function readableFile(d: Domain, user: User, uuid: string): { file: FileRow; meta: FileRow } {
  const file = d.store.fileByUuid(uuid);
  if (!file) throw notFound('File');
  const meta = file.parent_rid === null ? file : fileStore(d.ctx.db).byRid(file.parent_rid);
  const rec = d.store.byRid(file.record_rid);
  if (!meta || !rec) throw notFound('File');
  const dt = d.datatypeOf(rec);
  const now = d.now();
  const allowed = seesAll(user, dt) || meta.created_by === user.id || (isPublicAt(meta.public_date, now) && canRead(d, user, rec));
  if (!allowed) throw notFound('File');
  return { file, meta };
}
