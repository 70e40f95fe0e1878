import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFileDurableSync, mkdirDurable, renameDurable, writeFileDurableSync } from '../../electron/service/domain/files/durableFs.js';

const hasStrace = process.platform === 'linux' && spawnSync('strace', ['-V']).status === 0;
if (!hasStrace) console.log('skip: durableFs directory-sync trace needs strace on Linux (apt install strace); not found here');

describe('durable files', () => {
  it('writes, copies and renames whole files, leaving no temporary copy', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'odr-durable-'));
    writeFileDurableSync(path.join(root, 'key'), 'secret', { mode: 0o600 });
    expect(readFileSync(path.join(root, 'key'), 'utf8')).toBe('secret');
    if (process.platform !== 'win32') expect(statSync(path.join(root, 'key')).mode & 0o777).toBe(0o600);

    await mkdirDurable(path.join(root, 'a', 'b'));
    writeFileSync(path.join(root, 'staged'), 'bytes');
    await renameDurable(path.join(root, 'staged'), path.join(root, 'a', 'b', 'blob'));
    expect(readFileSync(path.join(root, 'a', 'b', 'blob'), 'utf8')).toBe('bytes');

    copyFileDurableSync(path.join(root, 'a', 'b', 'blob'), path.join(root, 'c', 'd', 'copy'), path.join(root, 'copy.tmp'));
    expect(readFileSync(path.join(root, 'c', 'd', 'copy'), 'utf8')).toBe('bytes');
    expect(existsSync(path.join(root, 'copy.tmp'))).toBe(false);
    expect(readdirSync(root).sort()).toEqual(['a', 'c', 'key']);
  });

  // A power cut cannot be staged in a test; what can be seen is that the directory holding each
  // new name is synced after the name is made, which is what makes it survive one.
  it.skipIf(!hasStrace)('syncs the directory of every name it makes, after making it', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'odr-durable-trace-'));
    const script = `
      import { writeFileSync } from 'node:fs';
      import { mkdirDurable, renameDurable, writeFileDurableSync, copyFileDurableSync } from ${JSON.stringify(
        path.resolve('electron/service/domain/files/durableFs.ts'),
      )};
      const r = ${JSON.stringify(root)};
      writeFileDurableSync(r + '/key', 'k');
      await mkdirDurable(r + '/x/y');
      writeFileSync(r + '/s', 'b');
      await renameDurable(r + '/s', r + '/x/y/blob');
      copyFileDurableSync(r + '/x/y/blob', r + '/z/copy', r + '/t');
    `;
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
        script,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.status).toBe(0);
    // Each name made (a rename's target, a new file) and the index of the line that made it;
    // each directory synced and where.
    const opened = new Map<string, string>();
    const made: { file: string; at: number }[] = [];
    const synced: { dir: string; at: number }[] = [];
    run.stderr.split('\n').forEach((line, at) => {
      const open = /openat\(AT_FDCWD, "([^"]+)", ([A-Z_|]+)[^)]*\) = (\d+)/.exec(line);
      if (open) {
        opened.set(open[3]!, open[1]!);
        if (open[2]!.includes('O_CREAT') && open[1]!.startsWith(root)) made.push({ file: open[1]!, at });
      }
      const ren = /rename(?:at2?)?\((?:AT_FDCWD, )?"[^"]+", (?:AT_FDCWD, )?"([^"]+)"/.exec(line);
      if (ren) made.push({ file: ren[1]!, at });
      const dir = /mkdir(?:at)?\((?:AT_FDCWD, )?"([^"]+)"[^)]*\) = 0/.exec(line);
      if (dir) made.push({ file: dir[1]!, at });
      const sync = /fsync\((\d+)\)/.exec(line);
      if (sync && opened.has(sync[1]!)) synced.push({ dir: opened.get(sync[1]!)!, at });
    });
    // `s` and `t` are staging names the script and the copy make; they need not survive.
    const finals = made.filter((m) => !['s', 't'].includes(path.basename(m.file)));
    expect(finals.map((m) => path.relative(root, m.file)).sort()).toEqual(['key', 'x', 'x/y', 'x/y/blob', 'z', 'z/copy']);
    for (const m of finals) {
      const dir = path.dirname(m.file);
      expect(
        synced.some((s) => s.dir === dir && s.at > m.at),
        `${dir} synced after ${m.file} was made`,
      ).toBe(true);
    }
  });
});
