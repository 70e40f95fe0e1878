import { findRecord } from '../../../shared/recordTree.js';
import type { FieldEntry, OdrRecord, OptionEntry, TagEntry } from '../../../shared/schemas/record.js';
import type { OutboxOp } from '../store/syncState.js';
import { selectionAfter } from './guards.js';

/** What the field types tell: how a write's value is held in a server copy. */
export interface FieldKinds {
  boolean: (field: string) => boolean;
  tags: (field: string) => boolean;
  single: (field: string) => boolean;
}

/** A write of a field's value, selection or a record's public date: what the base compares. */
export type FieldWrite = Extract<OutboxOp, { op: 'value' | 'option' | 'public' }>;

/**
 * Each field or public-date write of `sent` with its record in `out` (a copy of the base), under
 * the server's uuid: a record the base lacks (made in this pass) has nothing to compare against.
 */
export function* writtenRecords(
  out: OdrRecord,
  sent: readonly OutboxOp[],
  remoteOf: (local: string) => string | null | undefined,
): Generator<{ op: FieldWrite; remote: string; mine: OdrRecord }> {
  for (const op of sent) {
    if (op.op !== 'value' && op.op !== 'option' && op.op !== 'public') continue;
    const remote = remoteOf(op.record_uuid);
    const mine = remote ? findRecord(out, remote) : undefined;
    if (remote && mine) yield { op, remote, mine };
  }
}

/**
 * `base` with the fields (and public dates) `sent` wrote as the server holds them after those
 * writes, where no copy of it after them is to be had (a push cut by a failure whose last answer
 * was not the top-level record). Each write the server answered left its field as sent, so that
 * is the field's last known server state: the base, as after a settle (docs/sync.md §1). Built in
 * the server's form from the base's own entry (names, ids), only the part compared changed; a
 * record the base lacks (made in this pass) is left to the next pull. `local`: our record, for
 * an option's entry the base lacks.
 */
export function withSent(
  base: OdrRecord,
  sent: readonly OutboxOp[],
  local: OdrRecord | null,
  remoteOf: (local: string) => string | null | undefined,
  kinds: FieldKinds,
): OdrRecord {
  const out = structuredClone(base);
  for (const { op, mine } of writtenRecords(out, sent, remoteOf)) {
    if (op.op === 'public') {
      // No date means "now", which only the server's answer tells: that date waits for the next read.
      if (op.payload.public_date) mine._record_metadata = { ...mine._record_metadata, _public_date: op.payload.public_date };
      continue;
    }
    const at = mine.fields.findIndex((f) => f.field_uuid === op.field_uuid);
    const was = at >= 0 ? mine.fields[at] : undefined;
    const here = local ? findRecord(local, op.record_uuid)?.fields.find((f) => f.field_uuid === op.field_uuid) : undefined;
    const { value: _v, selected: _s, values: _o, tags: _t, ...rest } = was ?? here ?? blank(op.field_uuid);
    let entry: FieldEntry;
    if (op.op === 'value') {
      const v = op.payload.value;
      entry = kinds.boolean(op.field_uuid) ? { ...rest, selected: Number(v) ? 1 : 0 } : { ...rest, value: v ?? '' };
    } else if (kinds.tags(op.field_uuid)) {
      const pool = [...(was?.tags ?? []), ...(here?.tags ?? [])];
      const items = selectionAfter(was?.tags?.map((t) => t.template_tag_uuid) ?? [], op.item_uuid, op.payload.on, false);
      entry = {
        ...rest,
        tags: items.map((u): TagEntry => pool.find((t) => t.template_tag_uuid === u) ?? { ...unnamed, template_tag_uuid: u }),
      };
    } else {
      const pool = [...(was?.values ?? []), ...(here?.values ?? [])];
      const before = was?.values?.map((o) => o.template_radio_option_uuid) ?? [];
      const items = selectionAfter(before, op.item_uuid, op.payload.on, kinds.single(op.field_uuid));
      entry = {
        ...rest,
        values: items.map(
          (u): OptionEntry => pool.find((o) => o.template_radio_option_uuid === u) ?? { ...unnamed, template_radio_option_uuid: u },
        ),
      };
    }
    if (at >= 0) mine.fields[at] = entry;
    else mine.fields.push(entry);
  }
  return out;
}

/** An option or tag neither copy names (turned off here since): its uuid is what is compared. */
const unnamed = { id: 0, name: '', selected: 1 as const };

const blank = (field: string): FieldEntry => ({ field_name: '', field_uuid: field, template_field_uuid: null, id: 0 });
