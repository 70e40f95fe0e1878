import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCsv } from '../../bench/sections/csvImport.js';
import { SYNTH } from '../../bench/synthetic.js';
import { importCsv, openCsv } from '../../electron/service/domain/import/csvImport.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { ADMIN, type TestService } from '../support/service.js';
import { attachedPair, type RemoteProc } from './support.js';

// Every kind of local write reaches the server (or is refused with a reason): writes that leave
// no field-level change-log entries (CSV import, ODR-export import, replace import) included.
// The remote is a second service process; nothing is mocked.

const TEXT = SYNTH.field('Medium Text');
const SAMPLE = SYNTH.field('Short Text');
const FILE = SYNTH.field('File');
let remote: RemoteProc;
let local: TestService;
let remoteId: number;

const su = () => local.service.domain.users.firstSuperUser()!;
const run = async () => {
  const s = await local.service.sync.run(remoteId, su(), [SYNTH.dataset]);
  expect(s.error).toBeUndefined();
  return s;
};
const remoteList = async () => (await remote.client.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records;

/** What a record holds, comparable across the two sides (record uuids left out; children sorted). */
function shape(r: OdrRecord): unknown {
  const fields = r.fields
    .filter((f) => !f.files)
    .map((f) => ({
      f: f.field_uuid,
      v: f.value ?? f.selected ?? null,
      o: (f.values ?? []).map((v) => v.template_radio_option_uuid).sort(),
      t: (f.tags ?? []).map((t) => t.template_tag_uuid).sort(),
    }))
    .filter((x) => !((x.v === null || x.v === '' || x.v === 0) && !x.o.length && !x.t.length))
    .sort((a, b) => a.f.localeCompare(b.f));
  const kids = (r.records ?? []).map((c) => JSON.stringify(shape(c))).sort();
  return { fields, public: r._record_metadata._public_date, kids };
}
const valueOf = (r: OdrRecord, f: string) => r.fields.find((x) => x.field_uuid === f)?.value;

attachedPair(6, (p) => ({ remote, local, remoteId } = p));

describe('local writes that the change log records as imports reach the server', () => {
  it('CSV import: the new records are created there once, with their values, options and tags', async () => {
    const file = path.join(local.dataDir, 'rows.csv');
    writeCsv(file, 4);
    const plan = await openCsv(local.service.domain, su(), file, SYNTH.dataset);
    const res = await importCsv(local.service.domain, su(), plan, () => true);
    expect(res.imported).toBe(4);
    const s = await run();
    expect(s.created).toBe(4);
    const theirs = await remoteList();
    expect(theirs.length).toBe(6 + 4);
    for (let i = 0; i < 4; i++) {
      const mine = (await local.admin.request<{ records: OdrRecord[] }>('GET', `/dataset/${SYNTH.dataset}/1000/0`)).records.find(
        (r) => valueOf(r, SAMPLE) === `CSV-${i}`,
      )!;
      const there = theirs.filter((r) => valueOf(r, SAMPLE) === `CSV-${i}`);
      expect(there.length).toBe(1);
      expect(shape(there[0]!)).toEqual(shape(mine));
    }
    const again = await run();
    expect([again.pushed, again.created]).toEqual([0, 0]);
    expect((await remoteList()).length).toBe(10);
  });

  it('ODR-export import of new records (children included) creates them there; a file without its bytes is refused with a reason', async () => {
    // An export of one record under new uuids: a record the server has never seen.
    const withKids = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => local.admin.record(SYNTH.record(i))));
    const src = withKids.find((r) => (r.records ?? []).length > 0)!;
    const fresh = (r: OdrRecord): OdrRecord => ({ ...r, record_uuid: randomUUID(), records: (r.records ?? []).map(fresh) });
    const copy = fresh(src);
    const text = copy.fields.find((f) => f.field_uuid === TEXT)!;
    text.value = 'imported copy';
    const fileField = {
      ...copy.fields.find((f) => f.field_uuid === TEXT)!,
      field_uuid: FILE,
      field_name: 'File',
      value: undefined,
      files: [{ id: 987654, file_uuid: randomUUID(), original_name: 'absent.pdf', href: 'http://elsewhere/absent.pdf', file_size: '10' }],
    };
    copy.fields.push(fileField);
    expect(copy.records!.length).toBeGreaterThan(0);
    await local.importJson({ records: [copy] });
    const s = await run();
    expect(s.created).toBe(1 + copy.records!.length);
    const theirs = (await remoteList()).filter((r) => valueOf(r, TEXT) === 'imported copy');
    expect(theirs.length).toBe(1);
    expect(shape(theirs[0]!)).toEqual(shape(await local.admin.record(copy.record_uuid)));
    const parked = local.service.sync.status().needsAttention.filter((p) => p.op === 'file_upload');
    expect(parked.map((p) => p.last_error)).toEqual(['the bytes of "absent.pdf" are not on this computer, so it cannot be uploaded']);
  });

  it('a replace import over a synced record sends what changed: values, options unselected, public date', async () => {
    const rec = SYNTH.record(3);
    const before = await local.admin.record(rec);
    const copy = structuredClone(before);
    copy.fields.find((f) => f.field_uuid === TEXT)!.value = 'replaced by import';
    const multi = copy.fields.find((f) => f.values && f.values.length > 0 && f.field_uuid === SYNTH.field('Multiple Select'));
    if (multi) multi.values = [];
    copy._record_metadata._public_date = '2031-05-06 07:08:09';
    const file = path.join(local.dataDir, 'replace.json');
    writeFileSync(file, JSON.stringify({ records: [copy] }));
    await importFile(local.service.domain, su(), file, { replace: true });
    const mine = await local.admin.record(rec);
    expect(valueOf(mine, TEXT)).toBe('replaced by import');
    await run();
    const there = await remote.client.record(rec);
    expect(shape(there)).toEqual(shape(mine));
    expect(there._record_metadata._public_date).toBe('2031-05-06 07:08:09');
  });

  it('a replace import that drops a child record deletes it on the server too', async () => {
    const withKids = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => local.admin.record(SYNTH.record(i))));
    const before = withKids.find((r) => (r.records ?? []).length > 0)!;
    const dropped = before.records![0]!.record_uuid;
    expect((await remote.client.record(before.record_uuid)).records!.map((c) => c.record_uuid)).toContain(dropped);
    const copy = structuredClone(before);
    copy.records = copy.records!.filter((c) => c.record_uuid !== dropped);
    const file = path.join(local.dataDir, 'replace-child.json');
    writeFileSync(file, JSON.stringify({ records: [copy] }));
    await importFile(local.service.domain, su(), file, { replace: true });
    await run();
    const there = await remote.client.record(before.record_uuid);
    expect((there.records ?? []).map((c) => c.record_uuid)).not.toContain(dropped);
    expect(shape(there)).toEqual(shape(await local.admin.record(before.record_uuid)));
  });

  it('importing an export of a server record that was edited there since makes conflicts, never reverts the server', async () => {
    const made = await remote.client.createRecord(SYNTH.dataset, { user_email: ADMIN.email });
    await remote.client.setValue(made.record_uuid, TEXT, 'T0 on server');
    await remote.client.setValue(made.record_uuid, SAMPLE, 'same both sides');
    const exported = await remote.client.record(made.record_uuid);
    await remote.client.setValue(made.record_uuid, TEXT, 'T1 on server');
    await local.importJson({ records: [exported] });
    const s = await run();
    expect(s.created).toBe(0);
    const there = await remote.client.record(made.record_uuid);
    expect(valueOf(there, TEXT)).toBe('T1 on server');
    expect(valueOf(there, SAMPLE)).toBe('same both sides');
    const c = local.service.sync.conflicts().filter((x) => x.record_uuid === made.record_uuid);
    expect(c.map((x) => [x.field_uuid, x.mine, x.theirs])).toEqual([[TEXT, 'T0 on server', 'T1 on server']]);
    expect((await remoteList()).filter((r) => r.record_uuid === made.record_uuid).length).toBe(1);
  });

  it('a batch edit and its undo reach the server', async () => {
    const ids = [SYNTH.record(4), SYNTH.record(5)];
    const batch = async (body: unknown) => {
      const r = await fetch(`${local.host.url}/local/datasets/${SYNTH.dataset}/batch`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${local.admin.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(200);
      return (await r.json()) as { before: unknown[] };
    };
    const old = await Promise.all(ids.map(async (u) => valueOf(await remote.client.record(u), TEXT)));
    const done = await batch({ records: ids, change: { kind: 'value', field: TEXT, value: 'batch here' } });
    await run();
    for (const u of ids) expect(valueOf(await remote.client.record(u), TEXT)).toBe('batch here');
    await batch({ change: { kind: 'restore', field: TEXT, items: done.before } });
    await run();
    expect(await Promise.all(ids.map(async (u) => valueOf(await remote.client.record(u), TEXT)))).toEqual(old);
  });

  it('deleting a synced dataset here is refused with a reason, and changes nothing', async () => {
    const before = local.digest();
    const r = await local.admin.send('DELETE', `/dataset/${SYNTH.dataset}`);
    expect(r.status).toBe(409);
    const body = (await r.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/is synced with a remote server/);
    expect(local.digest()).toBe(before);
  });
});
