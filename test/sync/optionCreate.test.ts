import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { TestService } from '../support/service.js';
import { attachedPair } from './support.js';

// A synced dataset's template is the server's: a save here naming a new option or tag is refused
// with a 409 that says where to add it, and changes nothing here (test/api/optionCreate.test.ts
// has the unsynced case, where an admin's save creates it).

let local: TestService;
attachedPair(2, (p) => ({ local } = p));

async function save(body: unknown) {
  const res = await fetch(`${local.api}/dataset/record`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${local.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { error?: { message: string } } };
}

describe('a new option or tag named in a save of a synced dataset', () => {
  const cases: [string, unknown][] = [
    ['option', { field_uuid: SYNTH.field('Multiple Select'), values: [{ template_radio_option_uuid: 'Olivine' }] }],
    ['tag', { field_uuid: SYNTH.field('Tags'), tags: [{ template_tag_uuid: 'Basalt' }] }],
  ];
  it('an existing option or tag named by its name is selected: nothing would be created', async () => {
    const r = await save({
      record_uuid: SYNTH.record(1),
      fields: [
        { field_uuid: SYNTH.field('Multiple Select'), values: [{ template_radio_option_uuid: 'Multiple Select option 2' }] },
        { field_uuid: SYNTH.field('Tags'), tags: [{ template_tag_uuid: 'Group 3' }] },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const rec = await local.admin.record(SYNTH.record(1));
    const of = (f: string) => rec.fields.find((x) => x.field_uuid === f);
    expect(of(SYNTH.field('Multiple Select'))?.values?.map((v) => v.template_radio_option_uuid)).toEqual([
      SYNTH.option('Multiple Select', 2),
    ]);
    expect(of(SYNTH.field('Tags'))?.tags?.map((t) => t.template_tag_uuid)).toEqual([SYNTH.tag(3)]);
  });
  for (const [kind, field] of cases) {
    it(`a new ${kind}: 409 naming the server, nothing changed here`, async () => {
      const before = local.digest();
      const r = await save({ record_uuid: SYNTH.record(0), fields: [field] });
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.error?.message).toMatch(new RegExp(`syncs with a server, which owns its template: add the ${kind} "\\w+"`));
      expect(local.digest()).toBe(before);
    });
  }
});
