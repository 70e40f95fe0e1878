import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/service/store/db.js';
import { refetchableTransaction, transaction } from '../../electron/service/store/tx.js';
import { tempDir } from '../support/service.js';

// A sync pull's batches commit without their own fsync (store/tx.ts): the connection must be back
// to synchronous=FULL after each, whatever happens, so no other writer loses its durability.

const dir = tempDir('odr-refetchable-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('refetchableTransaction', () => {
  const db = openDatabase(path.join(dir, 'db.sqlite'));
  const sync = () => db.pragma('synchronous', { simple: true });
  db.exec('CREATE TABLE t (x INTEGER)');
  const count = () => db.prepare('SELECT COUNT(*) FROM t').pluck().get();

  it('commits with synchronous=NORMAL and puts FULL back', () => {
    expect(sync()).toBe(2);
    const inside = refetchableTransaction(db, () => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      return sync();
    });
    expect(inside).toBe(1);
    expect(sync()).toBe(2);
    expect(count()).toBe(1);
  });

  it('rolls back as a whole on a throw, and still puts FULL back', () => {
    expect(() =>
      refetchableTransaction(db, () => {
        db.prepare('INSERT INTO t VALUES (2)').run();
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(sync()).toBe(2);
    expect(count()).toBe(1);
  });

  it('inside another transaction it is a savepoint of it and leaves the setting alone', () => {
    transaction(db, () => {
      refetchableTransaction(db, () => db.prepare('INSERT INTO t VALUES (3)').run());
      expect(sync()).toBe(2);
    });
    expect(count()).toBe(2);
  });
});
