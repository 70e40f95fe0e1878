import { OdrError, badRequest, forbidden, notFound } from '../errors.js';
import { newUuid } from '../ids.js';
import { isAdmin } from '../permissions.js';
import { WHO } from '../rights.js';
import type { DatatypeInfo, FieldInfo } from '../schemaCache.js';
import { syncOutbox } from '../../store/syncOutbox.js';
import { userOptionStore } from '../../store/userOptions.js';
import type { WriteCtx } from './fieldWrites.js';

// A record save names options and tags by uuid; the real server reads an entry that is not one
// of the field's as the NAME of a new one and creates it for a datatype admin (docs/odr-server.md
// §4.2–4.3). Scripts rely on it to grow a controlled vocabulary while they import. Unlike the real
// server, an entry equal to an existing option's or tag's name selects that one instead of
// adding a second of the same name.

/** ODR's option and tag names are VARCHAR(255). */
const MAX_NAME = 255;

function checkCreate(w: WriteCtx, dt: DatatypeInfo, f: FieldInfo, kind: 'options' | 'tags', name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest(`An empty name is not one of the ${kind} of the Field ${f.uuid} "${f.name}", nor a new one`);
  if (trimmed.length > MAX_NAME) {
    throw badRequest(`A new ${kind === 'options' ? 'option' : 'tag'} name for the Field ${f.uuid} holds at most ${MAX_NAME} characters`);
  }
  if (!isAdmin(w.user, dt)) {
    throw forbidden(
      `Not allowed to create ${kind} for the Field ${f.uuid} "${f.name}": "${trimmed}" is none of its ${kind}, and only ${WHO.administers} may add one.`,
    );
  }
  // A synced dataset's template is the server's: an option made here would have a uuid the
  // server has never seen, and the next template pull would take it away again.
  if (syncOutbox(w.d.ctx.db).syncedDatasets().has(dt.top.uuid)) {
    throw new OdrError(
      409,
      `Dataset ${dt.top.uuid} syncs with a server, which owns its template: add the ${kind === 'options' ? 'option' : 'tag'} "${trimmed}" to the Field ${f.uuid} "${f.name}" there, then sync.`,
    );
  }
  return trimmed;
}

/** The field as the schema holds it now (a save may have added options since it was resolved). */
const current = (w: WriteCtx, f: FieldInfo): FieldInfo => w.d.schema().fields.get(f.id) ?? f;

/**
 * The uuids a save's radio `values` name, creating the options named by a new name. Answers the
 * field as it is afterwards, for the selection write.
 */
export function optionUuidsCreating(
  w: WriteCtx,
  dt: DatatypeInfo,
  field: FieldInfo,
  entries: string[],
): { field: FieldInfo; uuids: string[] } {
  let f = current(w, field);
  const uuids = entries.map((entry) => {
    if (f.optionsByUuid.has(entry)) return entry;
    const name = checkCreate(w, dt, f, 'options', entry);
    const same = f.options.find((o) => o.name === name);
    if (same) return same.uuid;
    const uuid = newUuid();
    userOptionStore(w.d.ctx.db).addOption(uuid, f.id, name, w.at);
    w.d.ctx.schema.changed();
    w.d.log.append(w.at, {
      op: 'option.create',
      userId: w.user.id,
      datasetUuid: dt.top.uuid,
      fieldUuid: f.uuid,
      itemUuid: uuid,
      new: { name },
    });
    f = current(w, f);
    return uuid;
  });
  return { field: f, uuids };
}

/**
 * The uuids a save's `tags` name, creating the tags named by a new name (under `parent_tag_uuid`
 * when given: a tag of the same field). Answers the field as it is afterwards.
 */
export function tagUuidsCreating(
  w: WriteCtx,
  dt: DatatypeInfo,
  field: FieldInfo,
  entries: { uuid: string; parent?: string }[],
): { field: FieldInfo; uuids: string[] } {
  let f = current(w, field);
  const uuids = entries.map(({ uuid: entry, parent }) => {
    if (f.tagsByUuid.has(entry)) return entry;
    const name = checkCreate(w, dt, f, 'tags', entry);
    const parentTag = parent === undefined || parent === '' ? undefined : f.tagsByUuid.get(parent);
    if (parent && !parentTag) throw notFound(`parent Tag "${parent}" of the Field ${f.uuid}`);
    const parentId = parentTag?.id ?? null;
    const same = [...f.tagsByUuid.values()].find((t) => t.name === name && t.parentId === parentId);
    if (same) return same.uuid;
    const uuid = newUuid();
    userOptionStore(w.d.ctx.db).addTag(uuid, f.id, parentId, name, w.at);
    w.d.ctx.schema.changed();
    w.d.log.append(w.at, {
      op: 'tag.create',
      userId: w.user.id,
      datasetUuid: dt.top.uuid,
      fieldUuid: f.uuid,
      itemUuid: uuid,
      new: { name, parent_tag_uuid: parentTag?.uuid ?? null },
    });
    f = current(w, f);
    return uuid;
  });
  return { field: f, uuids };
}
