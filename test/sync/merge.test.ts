import { describe, expect, it } from 'vitest';
import type { FieldEntry, OdrRecord } from '../../shared/schemas/record.js';
import { mergePublicDates, mergeRecord, mergeSets, publicConflict, pushConflict, sameContent } from '../../electron/service/sync/merge.js';

// The merge on its own: plain records in, decisions out, no database and no network.

const rec = (fields: FieldEntry[], uuid = 'r1'): OdrRecord => ({
  database_uuid: 'd',
  internal_id: 1,
  record_name: '1',
  record_uuid: uuid,
  template_uuid: 't',
  metadata_for_uuid: '',
  _record_metadata: { _create_date: '', _create_auth: '', _public_date: '' },
  fields,
  records: [],
});
const text = (field: string, value: string): FieldEntry => ({
  field_name: field.toUpperCase(),
  field_uuid: field,
  template_field_uuid: null,
  id: 1,
  value,
});
const opts = (field: string, ...uuids: string[]): FieldEntry => ({
  field_name: field.toUpperCase(),
  field_uuid: field,
  template_field_uuid: null,
  id: 1,
  values: uuids.map((u, i) => ({ id: i, template_radio_option_uuid: u, name: `opt ${u}`, selected: 1 as const })),
});
const tags = (field: string, ...uuids: string[]): FieldEntry => ({
  field_name: field.toUpperCase(),
  field_uuid: field,
  template_field_uuid: null,
  id: 1,
  tags: uuids.map((u, i) => ({ id: i, template_tag_uuid: u, name: `tag ${u}`, selected: 1 as const })),
});
const multi = (_f: string) => false;
const single = (f: string) => f === 's';
const merge = (base: FieldEntry[], local: FieldEntry[], theirs: FieldEntry[], pending: string[] = [], isSingle = multi) =>
  mergeRecord({
    base: rec(base),
    local: rec(local),
    theirs: rec(theirs),
    pending: new Set(pending.map((f) => `r1|${f}`)),
    single: isSingle,
  });
const applied = (r: ReturnType<typeof merge>) => [...r.apply.values()].map((s) => [s.field, s.key]);

describe('mergeSets (option and tag selections as set operations)', () => {
  it("applies both sides' additions and removals to the base", () => {
    expect(mergeSets(['a', 'b'], ['a', 'b', 'c'], ['b', 'd'])).toEqual(['b', 'c', 'd']);
    expect(mergeSets([], ['x'], ['y'])).toEqual(['x', 'y']);
    expect(mergeSets(['a'], [], ['a'])).toEqual([]);
    expect(mergeSets(['a'], ['a'], ['a'])).toEqual(['a']);
  });
});

describe('mergeRecord', () => {
  it("takes the server's change to a field not touched here", () => {
    const r = merge([text('f', 'old')], [text('f', 'old')], [text('f', 'new')]);
    expect(applied(r)).toEqual([['f', 'val:new']]);
    expect(r.conflicts).toEqual([]);
  });

  it('keeps a local change the server did not make; equal changes cancel', () => {
    expect(applied(merge([text('f', 'old')], [text('f', 'mine')], [text('f', 'old')], ['f']))).toEqual([]);
    const same = merge([text('f', 'old')], [text('f', 'both')], [text('f', 'both')], ['f']);
    expect([applied(same), same.conflicts]).toEqual([[], []]);
  });

  it('makes a conflict of a value changed differently on both sides, with base, mine and theirs', () => {
    const r = merge([text('f', 'old'), text('g', '1')], [text('f', 'mine'), text('g', '1')], [text('f', 'theirs'), text('g', '2')], ['f']);
    expect(r.conflicts).toEqual([{ record: 'r1', field: 'f', name: 'F', base: 'old', mine: 'mine', theirs: 'theirs' }]);
    expect(applied(r)).toEqual([['g', 'val:2']]); // the other field still merges
  });

  it('merges disjoint option changes on both sides as set operations', () => {
    const r = merge([opts('m', 'a', 'b')], [opts('m', 'a', 'b', 'c')], [opts('m', 'b', 'd')], ['m']);
    expect(r.conflicts).toEqual([]);
    expect(applied(r)).toEqual([['m', 'opts:b,c,d']]);
    expect([...r.apply.values()][0]!.entry.values!.map((v) => v.name)).toEqual(['opt b', 'opt c', 'opt d']);
  });

  it('merges tags the same way', () => {
    const r = merge([tags('t', 'x')], [tags('t', 'x', 'y')], [tags('t', 'z')], ['t']);
    expect(applied(r)).toEqual([['t', 'tags:y,z']]);
  });

  it('makes a conflict when a one-option field was set to different options on both sides', () => {
    const r = merge([opts('s', 'a')], [opts('s', 'b')], [opts('s', 'c')], ['s'], single);
    expect(r.conflicts).toEqual([{ record: 'r1', field: 's', name: 'S', base: 'opt a', mine: 'opt b', theirs: 'opt c' }]);
    expect(applied(r)).toEqual([]);
  });

  it('without a base copy, only unsent local changes count as ours (they stand until pushed)', () => {
    const r = mergeRecord({
      base: null,
      local: rec([text('f', 'x'), opts('m', 'a')]),
      theirs: rec([text('f', 'y'), opts('m', 'b')]),
      pending: new Set(['r1|m']),
      single: multi,
    });
    expect(applied(r)).toEqual([['f', 'val:y']]);
    expect(r.conflicts).toEqual([]);
  });

  it('leaves children new on the server to the next clean pull', () => {
    const theirs = rec([]);
    theirs.records = [rec([text('f', 'new')], 'child')];
    expect(applied(mergeRecord({ base: null, local: rec([]), theirs, pending: new Set(), single: multi }))).toEqual([]);
  });
});

describe('pushConflict (before a write goes out)', () => {
  const check = (base: string, local: string, server: string, over?: string) =>
    pushConflict({
      record: 'r1',
      field: 'f',
      fresh: rec([text('f', server)]),
      remoteKey: 'r1|f',
      base: rec([text('f', base)]),
      local: rec([text('f', local)]),
      over,
    });
  it('lets a write through when the server still has the base or already our value', () => {
    expect(check('old', 'mine', 'old')).toBeNull();
    expect(check('old', 'mine', 'mine')).toBeNull();
  });
  it('stops a write over a server change, unless leased on exactly that server value', () => {
    expect(check('old', 'mine', 'theirs')).toEqual({ record: 'r1', field: 'f', name: 'F', base: 'old', mine: 'mine', theirs: 'theirs' });
    expect(check('old', 'mine', 'theirs', 'theirs')).toBeNull();
    expect(check('old', 'mine', 'later', 'theirs')).not.toBeNull();
  });
});

describe('pushConflict of one option of a multi-option field (a set operation)', () => {
  const check = (item: string, base: string[], local: string[], server: string[]) =>
    pushConflict({
      record: 'r1',
      field: 'm',
      item,
      fresh: rec([opts('m', ...server)]),
      remoteKey: 'r1|m',
      base: rec([opts('m', ...base)]),
      local: rec([opts('m', ...local)]),
    });
  it('another option changed on the server is no conflict', () => {
    expect(check('a', [], ['a'], ['b'])).toBeNull();
    expect(check('a', ['b'], [], ['c'])).toBeNull();
  });
  it('the same option turned the other way there is one, the whole field shown', () => {
    // Turned on and back off here (the base had it off), turned on there.
    expect(check('a', [], [], ['a', 'b'])).toEqual({ record: 'r1', field: 'm', name: 'M', base: '', mine: '', theirs: 'opt a, opt b' });
    expect(check('a', [], ['a'], ['a'])).toBeNull();
  });
});

describe('publicConflict (before a public date goes out)', () => {
  const at = (d: string) => ({ ...rec([]), _record_metadata: { _create_date: '', _create_auth: '', _public_date: d } });
  const check = (base: string, local: string, server: string, over?: string) =>
    publicConflict({ record: 'r1', fresh: at(server), base: at(base), local: at(local), over });
  it('is a conflict only when the server changed it since the base, to other than ours', () => {
    expect(check('b', 'mine', 'b')).toBeNull();
    expect(check('b', 'mine', 'mine')).toBeNull();
    expect(check('b', 'mine', 'theirs')).toMatchObject({
      field: '_public_date',
      name: 'Public date',
      base: 'b',
      mine: 'mine',
      theirs: 'theirs',
    });
    expect(check('b', 'mine', 'theirs', 'theirs')).toBeNull();
  });
});

describe('mergePublicDates (a record merged field by field takes public dates too)', () => {
  const dated = (date: string, child?: string): OdrRecord => {
    const r = rec([]);
    r._record_metadata._public_date = date;
    if (child !== undefined) r.records = [{ ...rec([], 'c1'), _record_metadata: { ...r._record_metadata, _public_date: child } }];
    return r;
  };
  const X = '2025-01-01 00:00:00';
  const Y = '2038-01-01 00:00:00';
  const Z = '2030-01-01 00:00:00';
  const run = (base: OdrRecord | null, local: OdrRecord, theirs: OdrRecord, pending: string[] = [], written: string[] = []) =>
    mergePublicDates({ base, local, theirs, pending: new Set(pending), single: multi, written: new Set(written) });
  it("applies the server's change, top and child, when nothing changed here", () => {
    expect([...run(dated(X, X), dated(X, X), dated(Y, Z)).apply]).toEqual([
      ['r1', Y],
      ['c1', Z],
    ]);
  });
  it('leaves it when the server did not change it, or already has ours', () => {
    expect(run(dated(X), dated(Z), dated(X)).apply.size).toBe(0);
    expect(run(dated(X), dated(Z), dated(Z)).apply.size).toBe(0);
  });
  it('changed on both sides to different dates is a conflict, applied nowhere', () => {
    const r = run(dated(X), dated(Z), dated(Y));
    expect(r.apply.size).toBe(0);
    expect(r.conflicts).toMatchObject([{ record: 'r1', field: '_public_date', base: X, mine: Z, theirs: Y }]);
  });
  it('an operation waiting here on it (pending, in conflict or refused) keeps it as it is here', () => {
    const r = run(dated(X), dated(Z), dated(Y), ['r1|']);
    expect([r.apply.size, r.conflicts.length]).toEqual([0, 0]);
  });
  it('just written by a push: the server stored form is applied, no conflict', () => {
    const r = run(dated(X), dated(Z), dated(Y), [], ['r1|']);
    expect([...r.apply]).toEqual([['r1', Y]]);
    expect(r.conflicts).toEqual([]);
  });
  it('without a base: the server date is applied unless an operation waits here', () => {
    expect([...run(null, dated(X), dated(Y)).apply]).toEqual([['r1', Y]]);
    expect(run(null, dated(X), dated(Y), ['r1|']).apply.size).toBe(0);
  });
});

describe('mergeRecord with an option held in a conflict', () => {
  it("leaves that option as it is here and merges the field's other options", () => {
    const r = mergeRecord({
      base: rec([opts('m')]),
      local: rec([opts('m')]),
      theirs: rec([opts('m', 'a', 'b')]),
      pending: new Set(['r1|m']),
      single: multi,
      held: new Map([['r1|m', new Set(['a'])]]),
    });
    expect(applied(r)).toEqual([['m', 'opts:b']]);
    expect(r.conflicts).toEqual([]);
  });
});

describe('sameContent (a server copy that changes nothing here is not written again)', () => {
  const file = (uuid: string, name: string): FieldEntry => ({
    field_name: 'F',
    field_uuid: 'files',
    template_field_uuid: null,
    id: 1,
    files: [{ id: 1, file_uuid: uuid, file_size: '10', href: `h/${uuid}`, original_name: name, _file_metadata: { _public_date: 'p' } }],
  });
  const tree = (fields: FieldEntry[], kids: OdrRecord[] = [], publicDate = '2025-01-01 00:00:00', updated = 'u1') => {
    const r = rec(fields);
    r._record_metadata = { ...r._record_metadata, _public_date: publicDate, _update_date: updated };
    r.records = kids;
    return r;
  };
  const base = () => tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k'), file('u1', 'a.csv')], [rec([text('g', 'c')], 'kid')]);

  it('holds when only the dates of the last change differ, options in any order, empty equal to missing', () => {
    const theirs = tree(
      [text('f', 'x'), opts('o', 'b', 'a'), tags('t', 'k'), text('empty', ''), file('u1', 'a.csv')],
      [rec([text('g', 'c')], 'kid')],
      '2025-01-01 00:00:00',
      'u2',
    );
    expect(sameContent(base(), theirs)).toBe(true);
  });
  it('fails on any value, selection, file, child or public date that differs', () => {
    const variants: OdrRecord[] = [
      tree([text('f', 'y'), opts('o', 'a', 'b'), tags('t', 'k'), file('u1', 'a.csv')], [rec([text('g', 'c')], 'kid')]),
      tree([text('f', 'x'), opts('o', 'a'), tags('t', 'k'), file('u1', 'a.csv')], [rec([text('g', 'c')], 'kid')]),
      tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t'), file('u1', 'a.csv')], [rec([text('g', 'c')], 'kid')]),
      tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k'), file('u1', 'b.csv')], [rec([text('g', 'c')], 'kid')]),
      tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k'), file('u2', 'a.csv')], [rec([text('g', 'c')], 'kid')]),
      tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k')], [rec([text('g', 'c')], 'kid')]),
      tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k'), file('u1', 'a.csv')], [rec([text('g', 'd')], 'kid')]),
      tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k'), file('u1', 'a.csv')], [rec([text('g', 'c')], 'other')]),
      tree([text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k'), file('u1', 'a.csv')], []),
      tree(
        [text('f', 'x'), opts('o', 'a', 'b'), tags('t', 'k'), file('u1', 'a.csv')],
        [rec([text('g', 'c')], 'kid')],
        '2200-01-01 00:00:00',
      ),
    ];
    for (const [i, v] of variants.entries()) expect([i, sameContent(base(), v)]).toEqual([i, false]);
    // A child moved under another parent in the same tree.
    const moved = base();
    moved.records = [rec([], 'p2')];
    moved.records[0]!.records = [rec([text('g', 'c')], 'kid')];
    const here = base();
    here.records = [rec([], 'p2'), rec([text('g', 'c')], 'kid')];
    expect(sameContent(here, moved)).toBe(false);
  });
});
