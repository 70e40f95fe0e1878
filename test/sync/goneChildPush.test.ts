import { describe, expect, it } from 'vitest';
import { SYNTH } from '../../bench/synthetic.js';
import type { OdrRecord } from '../../shared/schemas/record.js';
import { RECORD_DELETED_FIELD } from '../../shared/schemas/sync.js';
import type { TestService } from '../support/service.js';
import { attachedPair, syncRun, storeFile, withChildFile, type RemoteProc } from './support.js';

// A child the server deleted while an edit of it waited here, met by a push (a sync run pushes
// before it pulls): the edit was checked against the server's copy of the top record, which no
// longer holds the child, and read as "the server emptied this field". A value conflict named
// by the field's uuid came beside the deleted-child conflict, and its "theirs" emptied the field
// here, so "mine" on the deleted child then made it on the server again without the edit. On a
// server that guards its writes the write went out and came back 404, listed under "needs
// attention" beside the conflict. The deleted-child conflict alone decides: the edit waits in it.

const NOTES = SYNTH.childField(3);
const EDIT = 'edited here, then deleted there';

const kids = (r: OdrRecord) => r.records.map((c) => c.record_uuid).sort();
const notes = (r: OdrRecord) => r.records.map((c) => c.fields.find((f) => f.field_uuid === NOTES)?.value ?? '').sort();

function goneChildMetByPush(name: string, realServer: boolean, rec: string) {
  describe(name, () => {
    let remote: RemoteProc;
    let local: TestService;
    let remoteId: number;
    attachedPair(21, (p) => ({ remote, local, remoteId } = p), { template: withChildFile, gated: realServer, realServer });

    it('the deleted-child conflict alone holds the edit; "mine" makes the child there again with it', async () => {
      const run = () => syncRun(local, remoteId);
      // Its file bytes stored here put the record on the merge path, as in goneChildren.test.ts.
      await storeFile(local.admin, rec, `${rec}.txt`);
      await run();
      const [child] = kids(await local.admin.record(rec));
      expect(child).toBeDefined();
      await local.admin.setValue(child!, NOTES, EDIT);
      await remote.client.deleteRecords([child!]);

      await run();
      const conflicts = local.service.sync.conflicts();
      expect(conflicts.map((c) => [c.record_uuid, c.field_uuid])).toEqual([[child, RECORD_DELETED_FIELD]]);
      expect(local.service.sync.status().needsAttention).toEqual([]);
      expect(notes(await local.admin.record(rec))).toContain(EDIT);

      local.service.sync.resolve(conflicts[0]!.id, 'mine', local.service.domain.users.firstSuperUser()!);
      await run();
      const there = await remote.client.record(rec);
      expect(notes(there)).toContain(EDIT);
      expect(notes(await local.admin.record(rec))).toEqual(notes(there));
      expect(local.service.sync.conflicts()).toEqual([]);
      expect(local.service.sync.status().needsAttention).toEqual([]);
    });
  });
}

// Records 10 and 20 of the synthetic set have children.
goneChildMetByPush('a server that guards its writes (odr-desktop)', false, SYNTH.record(10));
goneChildMetByPush('a server that does not (a real ODR server: read first)', true, SYNTH.record(20));
