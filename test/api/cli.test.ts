import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OdrClient } from '../../shared/client/odrClient.js';
import { describeFixtures, fixture } from '../support/fixtures.js';
import { runCli } from '../support/processes.js';
import { tempDir } from '../support/service.js';

const dirs: string[] = [];
const newDir = () => {
  const d = tempDir('odr-cli-');
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('npm run serve', () => {
  it('prints "listening on http://127.0.0.1:P/api/v4", answers, and closes cleanly on SIGTERM', async () => {
    const data = newDir();
    const p = runCli(['serve', '--port', '0', '--data', data]);
    const [, url] = await p.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v4)/);
    const [, password] = p.output().match(/created super-user admin@localhost with password (\S+)/)!;
    const client = new OdrClient({ baseUrl: url! });
    await client.login('admin@localhost', password!);
    expect((await client.databases()).databases).toEqual([]);
    p.child.kill('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
    expect(p.output()).toContain('stopped (SIGTERM)');
    // a clean close checkpoints the WAL and removes it
    expect(existsSync(path.join(data, 'odr.sqlite-wal'))).toBe(false);

    const again = runCli(['serve', '--port', '0', '--data', data]);
    await again.waitFor(/listening on/);
    expect(again.output()).not.toContain('created super-user');
    again.child.kill('SIGTERM');
    await again.exited;
  }, 120_000); // two service processes in turn

  it('takes the first super-user from ODR_ADMIN_EMAIL / ODR_ADMIN_PASSWORD and prints no password', async () => {
    const p = runCli(['serve', '--port', '0', '--data', newDir()], {
      ODR_ADMIN_EMAIL: 'boss@lab.test',
      ODR_ADMIN_PASSWORD: 'a-long-password',
    });
    const [, url] = await p.waitFor(/listening on (\S+)/);
    expect(p.output()).toContain('created super-user boss@lab.test');
    expect(p.output()).not.toContain('a-long-password');
    await new OdrClient({ baseUrl: url! }).login('boss@lab.test', 'a-long-password');
    p.child.kill('SIGTERM');
    await p.exited;
  });

  it('refuses a port it cannot use with a clear message', async () => {
    const p = runCli(['serve', '--port', '99999', '--data', newDir()]);
    expect((await p.exited).code).toBe(1);
    expect(p.output()).toContain('--port must be 0..65535');
  });
});

describeFixtures('npm run odr -- import', () => {
  it('prints the dataset uuid and counts', async () => {
    const data = newDir();
    const tpl = runCli(['import', fixture('chemin_template.json'), '--data', data]);
    expect((await tpl.exited).code).toBe(0);
    expect(tpl.output()).toMatch(/imported template: 6 datatype\(s\), 53 field\(s\)/);
    expect(tpl.output()).toContain('dataset 110a55b  CheMin');
    const recs = runCli(['import', fixture('chemin_data.json'), '--data', data]);
    expect((await recs.exited).code).toBe(0);
    expect(recs.output()).toMatch(/imported 24 record\(s\) \(\+105 child records, 332 file entries\), skipped 0/);
    const bad = runCli(['import', path.join(data, 'missing.json'), '--data', data]);
    expect((await bad.exited).code).toBe(1);
    expect(bad.output()).toContain('error: cannot read');
  }, 120_000); // three CLI processes in turn: 24 s at load 19, too near vitest's 60 s
});
