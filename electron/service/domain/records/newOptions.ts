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

type Kind = 'options' | 'tags';
interface Item {
  id: number;
  uuid: string;
  name: string;
  parentId: number | null;
  fieldId: number;
  removed: boolean;
}

/** What differs between options and tags; the rules are the same. */
const KINDS = {
  options: {
    one: 'option',
    live: (f: FieldInfo): Map<string, Item> => new Map(f.options.map((o) => [o.uuid, { ...o, parentId: null }])),
    all: (w: WriteCtx): Iterable<Item> => [...w.d.schema().options.values()].map((o) => ({ ...o, parentId: null })),
    gone: (f: FieldInfo, uuid: string) => notFound(`Radio option "${uuid}" of field ${f.uuid} (removed from the template)`),
    add: (w: WriteCtx, uuid: string, f: FieldInfo, _parent: number | null, name: string, at: string) =>
      userOptionStore(w.d.ctx.db).addOption(uuid, f.id, name, at),
  },
  tags: {
    one: 'tag',
    live: (f: FieldInfo): Map<string, Item> => f.tagsByUuid,
    all: (w: WriteCtx): Iterable<Item> => w.d.schema().tags.values(),
    gone: (f: FieldInfo, uuid: string) => notFound(`Tag "${uuid}" of field ${f.uuid} (removed from the template)`),
    add: (w: WriteCtx, uuid: string, f: FieldInfo, parent: number | null, name: string, at: string) =>
      userOptionStore(w.d.ctx.db).addTag(uuid, f.id, parent, name, at),
  },
} as const;

/** Only a real creation is checked: naming an existing option works for whoever may edit the record. */
function checkCreate(w: WriteCtx, dt: DatatypeInfo, f: FieldInfo, kind: Kind, name: string): void {
  if (!isAdmin(w.user, dt)) {
    throw forbidden(
      `Not allowed to create ${kind} for the Field ${f.uuid} "${f.name}": "${name}" is none of its ${kind}, and only ${WHO.administers} may add one.`,
    );
  }
  // A synced dataset's template is the server's: an option made here would have a uuid the
  // server has never seen, and the next template pull would take it away again.
  if (syncOutbox(w.d.ctx.db).syncedDatasets().has(dt.top.uuid)) {
    throw new OdrError(
      409,
      `Dataset ${dt.top.uuid} syncs with a server, which owns its template: add the ${KINDS[kind].one} "${name}" to the Field ${f.uuid} "${f.name}" there, then sync.`,
    );
  }
}

/**
 * The uuids a save's radio `values` or `tags` name, in order, creating those named by a new name
 * (a tag under `parent` when given: a tag of the same field), dated `created` when the field
 * entry carries one. Answers the field as it is afterwards, for the selection write.
 */
export function uuidsCreating(
  w: WriteCtx,
  dt: DatatypeInfo,
  field: FieldInfo,
  kind: Kind,
  entries: { uuid: string; parent?: string }[],
  created?: string,
): { field: FieldInfo; uuids: string[] } {
  const k = KINDS[kind];
  // The field as the schema holds it now: an earlier entry may have added one.
  const current = () => w.d.schema().fields.get(field.id) ?? field;
  let f = current();
  const uuids = entries.map(({ uuid: entry, parent }) => {
    const live = k.live(f);
    if (live.has(entry)) return entry;
    // A uuid of one taken out of the template stays what it was: not found, never a new name.
    for (const item of k.all(w)) if (item.fieldId === f.id && item.removed && item.uuid === entry) throw k.gone(f, entry);
    const name = entry.trim();
    if (!name) throw badRequest(`An empty name is not one of the ${kind} of the Field ${f.uuid} "${f.name}", nor a new one`);
    if (name.length > MAX_NAME) throw badRequest(`A new ${k.one} name for the Field ${f.uuid} holds at most ${MAX_NAME} characters`);
    const parentItem = parent ? live.get(parent) : undefined;
    if (parent && !parentItem) throw notFound(`parent Tag "${parent}" of the Field ${f.uuid}`);
    const parentId = parentItem?.id ?? null;
    const same = [...live.values()].find((x) => x.name.trim() === name && x.parentId === parentId);
    if (same) return same.uuid;
    checkCreate(w, dt, f, kind, name);
    const uuid = newUuid();
    k.add(w, uuid, f, parentId, name, created ?? w.at);
    w.d.ctx.schema.changed();
    w.d.log.append(w.at, {
      op: `${k.one}.create`,
      userId: w.user.id,
      datasetUuid: dt.top.uuid,
      fieldUuid: f.uuid,
      itemUuid: uuid,
      new: kind === 'tags' ? { name, parent_tag_uuid: parentItem?.uuid ?? null } : { name },
    });
    f = current();
    return uuid;
  });
  return { field: f, uuids };
}
