import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { copyFileNotedSync, DirSyncs, syncDir, writeFileDurableSync } from '../../electron/service/domain/files/durableFs.js';
import { BlobStore } from '../../electron/service/domain/files/blobStore.js';
import { placeBlob, placeBuffer } from '../../electron/service/domain/files/ingest.js';
import type { Ctx } from '../../electron/service/domain/context.js';

const hasStrace = process.platform === 'linux' && spawnSync('strace', ['-V']).status === 0;
if (!hasStrace) console.log('skip: durableFs directory-sync trace needs strace on Linux (apt install strace); not found here');

describe('durable files', () => {
  it('writes, copies and renames whole files, leaving no temporary copy', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'odr-durable-'));
    writeFileDurableSync(path.join(root, 'key'), 'secret', { mode: 0o600 });
    expect(readFileSync(path.join(root, 'key'), 'utf8')).toBe('secret');
    if (process.platform !== 'win32') expect(statSync(path.join(root, 'key')).mode & 0o777).toBe(0o600);

    const dirs = new DirSyncs();
    dirs.mkdir(path.join(root, 'a', 'b'));
    writeFileSync(path.join(root, 'staged'), 'bytes');
    await dirs.rename(path.join(root, 'staged'), path.join(root, 'a', 'b', 'blob'));
    await dirs.flush();
    expect(readFileSync(path.join(root, 'a', 'b', 'blob'), 'utf8')).toBe('bytes');

    copyFileNotedSync(dirs, path.join(root, 'a', 'b', 'blob'), path.join(root, 'c', 'd', 'copy'), path.join(root, 'copy.tmp'));
    dirs.flushSync();
    expect(readFileSync(path.join(root, 'c', 'd', 'copy'), 'utf8')).toBe('bytes');
    expect(existsSync(path.join(root, 'copy.tmp'))).toBe(false);
    expect(readdirSync(root).sort()).toEqual(['a', 'c', 'key']);
  });

  // The trace below cannot hold a round open while another writer moves a name in; this can.
  it('a flush waits for the round under way and syncs what was noted during it in the next', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'odr-durable-rounds-'));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const rounds: string[][] = [];
    const dirs = new DirSyncs(async (dir) => {
      await gate;
      await syncDir(dir);
      rounds.at(-1)!.push(path.relative(root, dir) || '.');
    });
    const settled: string[] = [];
    const note = (p: Promise<void>, who: string) => p.then(() => settled.push(who));
    writeFileSync(path.join(root, 's1'), '1');
    dirs.mkdir(path.join(root, 'a', 'b'));
    await dirs.rename(path.join(root, 's1'), path.join(root, 'a', 'b', 'f1'));
    rounds.push([]);
    const first = note(dirs.flush(), 'first');
    // Made by the first writer, still being synced: a writer relying on it waits for that round.
    dirs.mkdir(path.join(root, 'a', 'b'));
    const leaning = note(dirs.flush(), 'leaning');
    writeFileSync(path.join(root, 's2'), '2');
    await dirs.rename(path.join(root, 's2'), path.join(root, 'a', 'b', 'f2'));
    const second = note(dirs.flush(), 'second');
    const secondToo = dirs.flush();
    expect(secondToo).toBe(dirs.flush());
    await new Promise((r) => setImmediate(r));
    expect(settled).toEqual([]);
    open();
    await first;
    rounds.push([]);
    await Promise.all([leaning, second, secondToo]);
    expect(settled.slice(0, 2).sort()).toEqual(['first', 'leaning']);
    expect(settled[2]).toBe('second');
    // Each round syncs each directory once; the second only what was noted after the first began.
    expect(rounds.map((r) => r.sort())).toEqual([['.', 'a', 'a/b'], ['a/b']]);
    await dirs.flush();
    expect(rounds).toHaveLength(2);
  });

  // Another writer's rename can finish before its continuation notes the directory; a writer
  // finding the bytes already in place must note it too, or its flush may not wait for that sync.
  it('a writer whose bytes are already at their address still notes their directory', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'odr-durable-exists-'));
    // The blob store needs only its data directory here (no database is read).
    const blobs = new BlobStore({ dataDir: root } as unknown as Ctx);
    const pending = () => [...(blobs.dirs as unknown as { pending: Set<string> }).pending];
    const bytes = Buffer.from('already here');
    const hash = createHash('sha256').update(bytes).digest('hex');
    mkdirSync(blobs.dirOf(hash), { recursive: true });
    writeFileSync(blobs.pathOf(hash), bytes);

    const tmp = blobs.tmpPath('staged');
    writeFileSync(tmp, bytes);
    expect(await placeBlob(blobs, { tmp, hash, size: bytes.length })).toBe(blobs.pathOf(hash));
    expect(existsSync(tmp)).toBe(false);
    expect(pending()).toEqual([blobs.dirOf(hash)]);
    await blobs.dirs.flush();
    expect(pending()).toEqual([]);

    expect(await placeBuffer(blobs, bytes)).toEqual({ hash, size: bytes.length });
    expect(pending()).toEqual([blobs.dirOf(hash)]);
    await blobs.dirs.flush();
    blobs.release([hash, hash]);
  });

  // A power cut cannot be staged in a test; what can be seen is that the directory holding each
  // new name is synced after the name is made, which is what makes it survive one.
  it.skipIf(!hasStrace)('syncs the directory of every name it makes, after making it', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'odr-durable-trace-'));
    const t = trace(
      root,
      `
      writeFileDurableSync(r + '/key', 'k');
      mkdirDurableSync(r + '/w/v');
      const dirs = new DirSyncs();
      dirs.mkdir(r + '/x/y');
      writeFileSync(r + '/s', 'b');
      await dirs.rename(r + '/s', r + '/x/y/blob');
      await dirs.flush();
      copyFileNotedSync(dirs, r + '/x/y/blob', r + '/z/copy', r + '/t');
      dirs.flushSync();
    `,
    );
    // `s` and `t` are staging names the script and the copy make; they need not survive.
    const finals = t.made.filter((m) => !['s', 't'].includes(path.basename(m.file)));
    expect(finals.map((m) => path.relative(root, m.file)).sort()).toEqual(['key', 'w', 'w/v', 'x', 'x/y', 'x/y/blob', 'z', 'z/copy']);
    expectSyncedAfter(t, finals);
  });

  // The batched path (a page of pulled files, a multi-file upload, a restore): names made by
  // several writers, each directory synced once, all of it before the "row" is written.
  it.skipIf(!hasStrace)('syncs each directory of a batch once, before what names the batch', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'odr-durable-batch-'));
    const t = trace(
      root,
      `
      const dirs = new DirSyncs();
      for (const [dir, name] of [['a/b', 'f1'], ['a/c', 'f2'], ['a/b', 'f3'], ['d/e', 'f4']]) {
        writeFileSync(r + '/s-' + name, name, { flush: true });
        dirs.mkdir(r + '/' + dir);
        await dirs.rename(r + '/s-' + name, r + '/' + dir + '/' + name);
      }
      await dirs.flush();
      writeFileSync(r + '/row1', 'committed');
      // A second writer finds a/b made and moves a file in while a round syncs another's names:
      // its flush also waits for that round (the directories it relies on are in it).
      dirs.mkdir(r + '/g/h');
      writeFileSync(r + '/s-f5', 'f5', { flush: true });
      await dirs.rename(r + '/s-f5', r + '/g/h/f5');
      const first = dirs.flush();
      dirs.mkdir(r + '/g/h');
      writeFileSync(r + '/s-f6', 'f6', { flush: true });
      await dirs.rename(r + '/s-f6', r + '/g/h/f6');
      await dirs.flush();
      writeFileSync(r + '/row2', 'committed');
      await first;
      // A writer with nothing new of its own still waits for the names others made.
      dirs.mkdir(r + '/i/j');
      writeFileSync(r + '/s-f7', 'f7', { flush: true });
      await dirs.rename(r + '/s-f7', r + '/i/j/f7');
      const third = dirs.flush();
      await dirs.flush();
      writeFileSync(r + '/row3', 'committed');
      await third;
      // The synchronous path (a restore from the trash).
      writeFileSync(r + '/src', 'bytes');
      copyFileNotedSync(dirs, r + '/src', r + '/k/l/f8', r + '/t');
      dirs.flushSync();
      writeFileSync(r + '/row4', 'committed');
    `,
    );
    const rows = ['row1', 'row2', 'row3', 'row4'].map((n) => t.made.find((m) => path.basename(m.file) === n)!.at);
    const names = t.made.filter((m) => !/^(s-|row|src$|t$)/.test(path.basename(m.file)));
    expect(names.map((m) => path.relative(root, m.file)).sort()).toEqual(
      [
        'a',
        'a/b',
        'a/b/f1',
        'a/b/f3',
        'a/c',
        'a/c/f2',
        'd',
        'd/e',
        'd/e/f4',
        'g',
        'g/h',
        'g/h/f5',
        'g/h/f6',
        'i',
        'i/j',
        'i/j/f7',
        'k',
        'k/l',
        'k/l/f8',
      ].sort(),
    );
    // Each name's directory synced after it was made and before the row that follows it.
    for (const m of names) {
      const row = rows.find((at) => at > m.at)!;
      const dir = path.dirname(m.file);
      expect(
        t.synced.some((s) => s.dir === dir && s.at > m.at && s.at < row),
        `${path.relative(root, dir) || '.'} synced after ${path.relative(root, m.file)} and before the next row`,
      ).toBe(true);
    }
    // Once per directory per batch: the first batch syncs the root, a, a/b, a/c, d and d/e once
    // each, not once per file (the root holds both a and d).
    const first = t.synced.filter((s) => s.at < rows[0]!).map((s) => path.relative(root, s.dir) || '.');
    expect(first.sort()).toEqual(['.', 'a', 'a/b', 'a/c', 'd', 'd/e']);
  });
});

interface Trace {
  made: { file: string; at: number }[];
  synced: { dir: string; at: number }[];
}

/** Runs `script` (with `r` = root and durableFs imported) under strace: the names it made and the directories it synced, in order. */
function trace(root: string, script: string): Trace {
  const run = spawnSync(
    'strace',
    [
      '-f',
      '-qq',
      '-e',
      'trace=openat,fsync,rename,renameat,renameat2,mkdir,mkdirat',
      process.execPath,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { writeFileSync } from 'node:fs';
       import * as durable from ${JSON.stringify(path.resolve('electron/service/domain/files/durableFs.ts'))};
       const { DirSyncs, copyFileNotedSync, mkdirDurableSync, writeFileDurableSync } = durable;
       const r = ${JSON.stringify(root)};
       ${script}`,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  expect(run.status, run.stderr.slice(-2000)).toBe(0);
  // Each name made (a rename's target, a new file, a new directory) and the index of the line
  // that made it; each directory synced and where.
  const opened = new Map<string, string>();
  const t: Trace = { made: [], synced: [] };
  // With -f a call another thread interrupts is split in two lines ("<unfinished ...>", then
  // "<... fsync resumed>"): joined here, placed where it returned.
  const started = new Map<string, string>();
  run.stderr.split('\n').forEach((raw, at) => {
    const pid = /^\[pid\s+(\d+)\] /.exec(raw)?.[1] ?? '';
    const body = raw.replace(/^\[pid\s+\d+\] /, '');
    if (body.endsWith('<unfinished ...>')) return void started.set(pid, body.slice(0, -'<unfinished ...>'.length).trimEnd());
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(body);
    // strace pads a resumed call's result (")      = 0"): one space, as on a whole line.
    const line = (resumed ? (started.get(pid) ?? '') + resumed[1] : body).replace(/\)\s+= /, ') = ');
    const open = /openat\(AT_FDCWD, "([^"]+)", ([A-Z_|]+)[^)]*\) = (\d+)/.exec(line);
    if (open) {
      opened.set(open[3]!, open[1]!);
      if (open[2]!.includes('O_CREAT') && open[1]!.startsWith(root)) t.made.push({ file: open[1]!, at });
    }
    const ren = /rename(?:at2?)?\((?:AT_FDCWD, )?"[^"]+", (?:AT_FDCWD, )?"([^"]+)"/.exec(line);
    if (ren) t.made.push({ file: ren[1]!, at });
    const dir = /mkdir(?:at)?\((?:AT_FDCWD, )?"([^"]+)"[^)]*\) = 0/.exec(line);
    if (dir) t.made.push({ file: dir[1]!, at });
    const sync = /fsync\((\d+)\)/.exec(line);
    if (sync && opened.has(sync[1]!) && opened.get(sync[1]!)!.startsWith(root)) {
      const p = opened.get(sync[1]!)!;
      if (statSync(p, { throwIfNoEntry: false })?.isDirectory()) t.synced.push({ dir: p, at });
    }
  });
  return t;
}

function expectSyncedAfter(t: Trace, names: { file: string; at: number }[]): void {
  for (const m of names) {
    const dir = path.dirname(m.file);
    expect(
      t.synced.some((s) => s.dir === dir && s.at > m.at),
      `${dir} synced after ${m.file} was made`,
    ).toBe(true);
  }
}
