import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import { startSyntheticService, USER, type TestService } from '../support/service.js';

// A save naming an option or tag the field does not have creates it, for a dataset admin (the
// real server's rule, docs/odr-server.md §4.2–4.3); anyone else gets a 403 and nothing changes.

let t: TestService;
let userToken = '';
beforeAll(async () => {
  t = await startSyntheticService(3);
  userToken = await t.client().login(USER.email, USER.password);
});
afterAll(() => t.close());

type Entry = {
  name: string;
  template_radio_option_uuid?: string;
  template_tag_uuid?: string;
  parent_template_tag_uuid?: string;
  user_created?: string;
};
type Rec = { fields: { field_uuid: string; values?: Entry[]; tags?: Entry[] }[] };
type Tpl = { fields: { field_uuid: string; radio_options?: Entry[]; tags?: (Entry & { tags?: Entry[] })[] }[] };

async function save(body: unknown, token = t.admin.token!) {
  const res = await fetch(`${t.api}/dataset/record`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Rec & { error?: { code: number; message: string } } };
}

const MULTI = SYNTH.field('Multiple Select');
const SINGLE = SYNTH.field('Single Radio');
const TAGS = SYNTH.field('Tags');
const optionsOf = async (field: string) =>
  (await t.admin.request<Tpl>('GET', `/template/${SYNTH.dataset}`)).fields.find((f) => f.field_uuid === field)!.radio_options ?? [];
const entriesOf = (rec: Rec, field: string, key: 'values' | 'tags') => rec.fields.find((f) => f.field_uuid === field)?.[key] ?? [];

describe('options and tags created by name in a save', () => {
  it('creates an option for an admin, selects it, and answers it with its new uuid', async () => {
    const before = await optionsOf(MULTI);
    const kept = SYNTH.option('Multiple Select', 1);
    const r = await save({
      record_uuid: SYNTH.record(0),
      fields: [{ field_uuid: MULTI, values: [{ template_radio_option_uuid: kept }, { template_radio_option_uuid: '  Olivine ' }] }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const made = entriesOf(r.body, MULTI, 'values').find((v) => v.name === 'Olivine');
    expect(made?.user_created).toBe('1');
    expect(made?.template_radio_option_uuid).not.toBe('Olivine');
    expect(entriesOf(r.body, MULTI, 'values').map((v) => v.template_radio_option_uuid)).toContain(kept);
    const after = await optionsOf(MULTI);
    expect(after.length).toBe(before.length + 1);
    expect(after.at(-1)).toMatchObject({ name: 'Olivine', template_radio_option_uuid: made!.template_radio_option_uuid });
    // A fresh read of the record says the same.
    const read = (await t.admin.record(SYNTH.record(0))) as unknown as Rec;
    expect(entriesOf(read, MULTI, 'values').map((v) => v.name)).toContain('Olivine');
  });

  it("dates a new option by the field entry's created, and lets a non-admin name an existing one", async () => {
    const r = await save({
      record_uuid: SYNTH.record(1),
      fields: [{ field_uuid: MULTI, created: '2020-05-06 07:08:09', values: [{ template_radio_option_uuid: 'Garnet' }] }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const made = entriesOf(r.body, MULTI, 'values').find((v) => v.name === 'Garnet') as Entry & { option_created?: string };
    expect(made.option_created).toBe('2020-05-06 07:08:09');
    const mine = await fetch(`${t.api}/dataset/${SYNTH.dataset}/record`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${userToken}` },
      body: new URLSearchParams({}),
    }).then((res) => res.json() as Promise<{ record_uuid: string }>);
    const named = await save(
      { record_uuid: mine.record_uuid, fields: [{ field_uuid: MULTI, values: [{ template_radio_option_uuid: ' Garnet' }] }] },
      userToken,
    );
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect(entriesOf(named.body, MULTI, 'values').map((v) => v.template_radio_option_uuid)).toEqual([made.template_radio_option_uuid]);
  });

  it('selects the existing option of that name instead of adding a second', async () => {
    const before = await optionsOf(MULTI);
    const r = await save({
      record_uuid: SYNTH.record(1),
      fields: [{ field_uuid: MULTI, values: [{ template_radio_option_uuid: 'Olivine' }] }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await optionsOf(MULTI)).toEqual(before);
    expect(entriesOf(r.body, MULTI, 'values').map((v) => v.template_radio_option_uuid)).toEqual([
      before.find((o) => o.name === 'Olivine')!.template_radio_option_uuid,
    ]);
  });

  it('creates a tag under a parent of the same field; the parent is selected with it', async () => {
    const r = await save({
      record_uuid: SYNTH.record(2),
      fields: [{ field_uuid: TAGS, tags: [{ template_tag_uuid: 'Basalt', parent_tag_uuid: SYNTH.tag(1) }] }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tags = entriesOf(r.body, TAGS, 'tags');
    const made = tags.find((x) => x.name === 'Basalt');
    expect(made).toMatchObject({ user_created: '1', parent_template_tag_uuid: SYNTH.tag(1) });
    expect(tags.map((x) => x.template_tag_uuid)).toContain(SYNTH.tag(1));
    const tpl = await t.admin.request<Tpl>('GET', `/template/${SYNTH.dataset}`);
    const root = tpl.fields.find((f) => f.field_uuid === TAGS)!.tags!.find((x) => x.template_tag_uuid === SYNTH.tag(1))!;
    expect(root.tags!.map((x) => x.name)).toContain('Basalt');
  });

  const refusals: [string, number, RegExp, () => Promise<Awaited<ReturnType<typeof save>>>][] = [
    [
      'a user who does not administer the dataset',
      403,
      /Not allowed to create options for the Field .*only the dataset's owner, its admins and super-users may add one/,
      async () => {
        const mine = await fetch(`${t.api}/dataset/${SYNTH.dataset}/record`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${userToken}` },
          body: new URLSearchParams({}),
        }).then((res) => res.json() as Promise<{ record_uuid: string }>);
        return save(
          { record_uuid: mine.record_uuid, fields: [{ field_uuid: MULTI, values: [{ template_radio_option_uuid: 'Pyroxene' }] }] },
          userToken,
        );
      },
    ],
    [
      'a second option on a single-choice field',
      400,
      /takes at most one selected option/,
      () =>
        save({
          record_uuid: SYNTH.record(0),
          fields: [
            {
              field_uuid: SINGLE,
              values: [{ template_radio_option_uuid: SYNTH.option('Single Radio', 1) }, { template_radio_option_uuid: 'Quartz' }],
            },
          ],
        }),
    ],
    [
      'an empty name',
      400,
      /An empty name is not one of the options of the Field/,
      () => save({ record_uuid: SYNTH.record(0), fields: [{ field_uuid: MULTI, values: [{ template_radio_option_uuid: '   ' }] }] }),
    ],
    [
      'a name past 255 characters',
      400,
      /holds at most 255 characters/,
      () =>
        save({ record_uuid: SYNTH.record(0), fields: [{ field_uuid: MULTI, values: [{ template_radio_option_uuid: 'x'.repeat(256) }] }] }),
    ],
    [
      'a new tag under a parent the field does not have',
      404,
      /parent Tag "nope" of the Field/,
      () =>
        save({
          record_uuid: SYNTH.record(0),
          fields: [{ field_uuid: TAGS, tags: [{ template_tag_uuid: 'Gabbro', parent_tag_uuid: 'nope' }] }],
        }),
    ],
  ];
  for (const [what, status, message, act] of refusals) {
    it(`refuses ${what} with ${status}, and changes nothing`, async () => {
      // The user's own record is made inside `act`: digest after making it would miss a change,
      // so compare the template and the records' selections instead of every table for that one.
      const templateBefore = JSON.stringify(await t.admin.request('GET', `/template/${SYNTH.dataset}`));
      const record0 = JSON.stringify(await t.admin.record(SYNTH.record(0)));
      const r = await act();
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error?.message).toMatch(message);
      expect(JSON.stringify(await t.admin.request('GET', `/template/${SYNTH.dataset}`))).toBe(templateBefore);
      expect(JSON.stringify(await t.admin.record(SYNTH.record(0)))).toBe(record0);
    });
  }
});
