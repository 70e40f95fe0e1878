import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type * as Electron from 'electron';
import { startShell, type Shell } from '../../electron/main/shell.js';
import { checkForUpdates, type Updater } from '../../electron/main/updates.js';
import { forkServiceChild } from '../../electron/main/nodeChild.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/service.js';
import { FakeWindow, fakeElectron } from './fakeElectron.js';

// "Check for Updates" in the main process. electron-updater itself needs the Electron runtime
// (its HTTP goes through Electron's net module), so here the feed's answer comes from a
// stand-in with electron-updater's shape; what the user is told is the code under test.
function feed(answer: string | Error | null): Updater & { calls: number } {
  return {
    autoDownload: false,
    calls: 0,
    async checkForUpdates() {
      this.calls++;
      if (answer instanceof Error) throw answer;
      return answer === null ? null : { updateInfo: { version: answer }, isUpdateAvailable: answer !== '0.1.0' };
    },
  };
}

describe('checkForUpdates', () => {
  it.each([
    ['0.2.0', 'newer', /Version 0\.2\.0 is available \(you have 0\.1\.0\)/],
    ['0.1.0', 'current', /latest version \(0\.1\.0\)/],
    [new Error('net::ERR_INTERNET_DISCONNECTED'), 'failed', /Could not check for updates: net::ERR_INTERNET_DISCONNECTED/],
    [null, 'unavailable', /no update feed/],
  ] as const)('feed answers %s → %s', async (answer, kind, message) => {
    const updater = feed(answer);
    const r = await checkForUpdates({ updater, currentVersion: '0.1.0', isPackaged: true });
    expect(r.kind).toBe(kind);
    expect(r.message).toMatch(message);
    expect(updater.calls).toBe(1);
  });

  it('a development run does not ask the feed and says why', async () => {
    const updater = feed('9.9.9');
    const r = await checkForUpdates({ updater, currentVersion: '0.1.0', isPackaged: false });
    expect(r).toMatchObject({ kind: 'unavailable', message: expect.stringMatching(/installed build/) });
    expect(updater.calls).toBe(0);
  });
});

describe('the Check for Updates menu item', () => {
  const dirs: string[] = [];
  const shells: Shell[] = [];
  afterEach(async () => {
    for (const s of shells.splice(0)) await s.quit();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    FakeWindow.all = [];
  });

  it('sits in the Help menu and shows what the feed found in a message box', async () => {
    const userData = tempDir('odr-updates-');
    dirs.push(userData);
    const fake = fakeElectron(userData, { packaged: true });
    const shell = await startShell(fake.api, {
      rendererDist: path.join(ROOT, 'dist', 'renderer'),
      preload: '/p.cjs',
      updater: feed('0.3.1'),
      startService: forkServiceChild,
    });
    shells.push(shell!);
    const help = (fake.calls.menu as Electron.MenuItemConstructorOptions[]).find((m) => m.role === 'help')!;
    const item = (help.submenu as Electron.MenuItemConstructorOptions[]).find((i) => /Check for Updates/.test(i.label ?? ''))!;
    (item.click as () => void)();
    // A few promises in this process, but vitest's default poll gives up after 1 s, which a loaded
    // machine can take away from a process that has just forked the service.
    await expect.poll(() => fake.calls.dialogs.length, { timeout: 20_000 }).toBe(1);
    expect(fake.calls.dialogs[0]).toMatchObject({
      type: 'info',
      message: expect.stringMatching(/Version 0\.3\.1 is available \(you have 0\.1\.0-test\)/),
    });
  });
});
