import type { FieldEntry, OdrRecord, OptionEntry, TagEntry } from '../../../shared/schemas/record';

// Pure edits of a record tree, for optimistic updates: the cache shows the change at once and
// the previous tree comes back if the service refuses.

function mapRecord(rec: OdrRecord, uuid: string, fn: (r: OdrRecord) => OdrRecord): OdrRecord {
  if (rec.record_uuid === uuid) return fn(rec);
  if (!rec.records?.length) return rec;
  return { ...rec, records: rec.records.map((c) => mapRecord(c, uuid, fn)) };
}

function mapField(rec: OdrRecord, recordUuid: string, field: { uuid: string; name: string }, fn: (f: FieldEntry) => FieldEntry): OdrRecord {
  return mapRecord(rec, recordUuid, (r) => {
    const has = r.fields.some((f) => f.field_uuid === field.uuid);
    const fields = has
      ? r.fields.map((f) => (f.field_uuid === field.uuid ? fn(f) : f))
      : [...r.fields, fn({ field_uuid: field.uuid, field_name: field.name, template_field_uuid: null, id: 0 })];
    return { ...r, fields };
  });
}

export function patchScalar(
  rec: OdrRecord,
  recordUuid: string,
  field: { uuid: string; name: string },
  boolean: boolean,
  value: string | number | null,
): OdrRecord {
  return mapField(rec, recordUuid, field, (f) => (boolean ? { ...f, selected: value === 1 || value === '1' ? 1 : 0 } : { ...f, value }));
}

export function patchOption(
  rec: OdrRecord,
  recordUuid: string,
  field: { uuid: string; name: string },
  option: { uuid: string; name: string },
  on: boolean,
  single: boolean,
  tags: boolean,
): OdrRecord {
  return mapField(rec, recordUuid, field, (f) => {
    if (tags) {
      const list = (f.tags ?? []).filter((t) => t.template_tag_uuid !== option.uuid);
      const entry: TagEntry = { id: 0, template_tag_uuid: option.uuid, name: option.name, selected: 1 };
      return { ...f, tags: on ? [...list, entry] : list };
    }
    const base = single && on ? [] : (f.values ?? []).filter((v) => v.template_radio_option_uuid !== option.uuid);
    const entry: OptionEntry = { id: 0, template_radio_option_uuid: option.uuid, name: option.name, selected: 1 };
    return { ...f, values: on ? [...base, entry] : base };
  });
}

export function removeChild(rec: OdrRecord, childUuid: string): OdrRecord {
  return {
    ...rec,
    records: (rec.records ?? []).filter((c) => c.record_uuid !== childUuid).map((c) => removeChild(c, childUuid)),
  };
}
