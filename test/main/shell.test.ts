import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CSP, startShell, type Shell } from '../../electron/main/shell.js';
import { navigationPolicy } from '../../electron/main/navigation.js';
import { loadBounds } from '../../electron/main/windowState.js';
import { menuTemplate } from '../../electron/main/menu.js';
import { forkServiceChild } from '../../electron/main/nodeChild.js';
import { IPC_CHANNELS } from '../../shared/desktopBridge.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/service.js';
import { FakeWindow, fakeElectron } from './fakeElectron.js';

// The service runs in a child process started by child_process.fork, standing in for utilityProcess.
const opts = { rendererDist: path.join(ROOT, 'dist', 'renderer'), preload: '/app/preload.cjs', startService: forkServiceChild };
const dirs: string[] = [];
beforeAll(() => {
  // The CSP assertion needs the built page: build it when missing or older than its sources.
  const r = spawnSync(process.execPath, ['scripts/ensure-renderer.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  expect(existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html'))).toBe(true);
}, 300_000);
const shells: Shell[] = [];
afterEach(async () => {
  for (const s of shells.splice(0)) await s.quit();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  FakeWindow.all = [];
});

/**
 * A port free a moment ago: the listener needs a fixed number, and a random one could be taken
 * (20000–40000 overlaps the kernel's ephemeral range, which every other test's port 0 draws from).
 */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/**
 * The loopback listener turned on at a port free a moment ago. Between the probe's close and the
 * listen, another test process can take that port (its port 0, an outgoing connection): a refusal
 * is tried again at another port, a bounded number of times.
 */
async function loopbackOn(set: (e: unknown, s: { enabled: boolean; port: number }) => Promise<{ url: string | null }>) {
  let last: unknown;
  for (let attempt = 1; attempt <= 5; attempt++) {
    const port = await freePort();
    try {
      return { port, on: await set({}, { enabled: true, port }) };
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

async function start(userData = tempDir('odr-shell-'), lock = true) {
  dirs.push(userData);
  const fake = fakeElectron(userData, { lock });
  const shell = await startShell(fake.api, opts);
  if (shell) shells.push(shell);
  const call = (url: string, init?: RequestInit) => fake.handlers.get('odr')!(new Request(url, init)) as Promise<Response>;
  return { fake, shell, call, userData };
}

describe('the Electron shell (Electron APIs injected, real service)', () => {
  it('a second instance quits at once and starts nothing', async () => {
    const { fake, shell } = await start(undefined, false);
    expect(shell).toBeNull();
    expect(fake.calls.quit).toBe(1);
    expect(fake.handlers.size).toBe(0);
  });

  it('registers the app scheme as privileged and opens one locked-down window on it', async () => {
    const { fake, shell } = await start();
    expect(fake.calls.schemes).toEqual([
      { scheme: 'odr', privileges: expect.objectContaining({ standard: true, secure: true, supportFetchAPI: true, stream: true }) },
    ]);
    const win = FakeWindow.all[0]!;
    expect(FakeWindow.all).toHaveLength(1);
    expect(win.opts.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      preload: '/app/preload.cjs',
    });
    expect(win.url).toBe('odr://app/');
    expect(shell!.dataDir).toBe(path.join(fake.api.app.getPath('userData'), 'data'));
    expect(existsSync(path.join(shell!.dataDir, 'odr.sqlite'))).toBe(true);
  });

  it('routes the app scheme to the service: the page with a CSP, auto-login, the ODR API', async () => {
    const { call } = await start();
    // The page and its CSP: always asserted (beforeAll builds the renderer when it is missing).
    const page = await call('odr://app/');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    const script = /src="\.?(\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script, 'the page loads its bundle from the app origin').toBeDefined();
    const asset = await call(`odr://app${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-security-policy')).toBeNull();
    const session = await call('odr://app/local/session', { method: 'POST', headers: { origin: 'odr://app' } });
    expect(session.status).toBe(200);
    const { token } = (await session.json()) as { token: string };
    const list = await call('odr://app/api/v4/search/databases', { headers: { Authorization: `Bearer ${token}` } });
    expect(list.status).toBe(200);
    expect((await call('odr://app/api/v4/search/databases')).status).toBe(401);
    expect((await call('odr://elsewhere/api/v4/search/databases')).status).toBe(404);
    const foreign = await call('odr://app/local/session', { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
  });

  it('keeps navigation in the app, sends web links to the browser, denies new windows and permissions', async () => {
    const { fake } = await start();
    const contents = FakeWindow.all[0]!.webContents;
    const nav = (url: string) => {
      let prevented = false;
      contents.emit(
        'will-navigate',
        {
          preventDefault: () => {
            prevented = true;
          },
        },
        url,
      );
      return prevented;
    };
    expect(nav('odr://app/#/d/abc')).toBe(false);
    expect(nav('https://odr.example.org/record/1')).toBe(true);
    expect(nav('file:///etc/passwd')).toBe(true);
    expect(nav('http://127.0.0.1:9/evil')).toBe(true);
    expect(fake.calls.external).toEqual(['https://odr.example.org/record/1', 'http://127.0.0.1:9/evil']);
    expect(contents.openHandler!({ url: 'https://docs.example.org' })).toEqual({ action: 'deny' });
    expect(contents.openHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(fake.calls.external).toContain('https://docs.example.org');
    expect(fake.calls.external).not.toContain('javascript:alert(1)');
    let granted: boolean | undefined;
    fake.permission()({}, 'media', (ok: boolean) => {
      granted = ok;
    });
    expect(granted).toBe(false);
    expect(fake.permissionCheck()()).toBe(false);
    expect(await fake.ipc.get(IPC_CHANNELS.openExternal)!({}, 'file:///etc/passwd')).toBeUndefined();
  });

  it('handles every bridge call of the IPC table, and nothing else', async () => {
    const { fake } = await start();
    expect([...fake.ipc.keys()].sort()).toEqual(Object.values(IPC_CHANNELS).sort());
    expect(await fake.ipc.get(IPC_CHANNELS.appInfo)!({})).toMatchObject({ version: '0.1.0-test' });
  });

  it('a second launch focuses the window', async () => {
    const { fake } = await start();
    fake.emitApp('second-instance');
    expect(FakeWindow.all[0]!.focused).toBe(1);
  });

  it('quit waits for the service to close; data and window bounds survive a restart', async () => {
    const first = await start();
    const { token } = (await (await first.call('odr://app/local/session', { method: 'POST' })).json()) as { token: string };
    const job = await first.call('odr://app/api/v4/job', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ job: { job_type: 'survives', target_entity: 'restart', total: 4, additional_data: null } }),
    });
    const { id } = (await job.json()) as { id: number };
    const win = FakeWindow.all[0]!;
    win.bounds = { x: 100, y: 120, width: 1000, height: 700 };
    win.emit('close');
    let prevented = false;
    first.fake.emitApp('before-quit', {
      preventDefault: () => {
        prevented = true;
      },
    });
    expect(prevented).toBe(true);
    await shells.shift()!.quit();
    expect(first.fake.calls.exit).toEqual([0]);
    // WAL checkpointed and removed on close: the database file alone holds everything.
    expect(existsSync(path.join(first.userData, 'data', 'odr.sqlite-wal'))).toBe(false);

    FakeWindow.all = [];
    const fake = fakeElectron(first.userData);
    const again = await startShell(fake.api, opts);
    shells.push(again!);
    expect(FakeWindow.all[0]!.opts).toMatchObject({ x: 100, y: 120, width: 1000, height: 700 });
    const t2 = (
      (await (await fake.handlers.get('odr')!(new Request('odr://app/local/session', { method: 'POST' }))).json()) as { token: string }
    ).token;
    const status = await fake.handlers.get('odr')!(
      new Request(`odr://app/api/v4/job/status/${id}/0`, { headers: { Authorization: `Bearer ${t2}` } }),
    );
    expect(((await status.json()) as { job_type: string }).job_type).toBe('survives');
  });

  it('shows running jobs on the dock/taskbar progress bar and clears it when they end', async () => {
    const { call } = await start();
    const { token } = (await (await call('odr://app/local/session', { method: 'POST' })).json()) as { token: string };
    const res = await call('odr://app/local/sample?records=300', { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(202);
    const progress = FakeWindow.all[0]!.progress;
    await expect.poll(() => progress.at(-1), { timeout: 30_000 }).toBe(-1);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.slice(0, -1).every((f) => f >= 0 && f <= 1)).toBe(true);
  });

  it('the loopback listener is off by default; turned on it serves the API on 127.0.0.1 only', async () => {
    const { fake, shell } = await start();
    expect(shell!.loopback()).toEqual({ settings: { enabled: false, port: 8460 }, url: null });
    const { port, on } = await loopbackOn(fake.ipc.get(IPC_CHANNELS.setLoopback)!);
    expect(on.url).toBe(`http://127.0.0.1:${port}/api/v4`);
    expect((await fetch(`${on.url}/search/databases`)).status).toBe(401);
    await expect(fake.ipc.get(IPC_CHANNELS.setLoopback)!({}, { enabled: true, port: 80 })).rejects.toThrow(/port/);
    const off = await fake.ipc.get(IPC_CHANNELS.setLoopback)!({}, { enabled: false, port });
    expect(off.url).toBeNull();
    await expect(fetch(`http://127.0.0.1:${port}/api/v4/search/databases`)).rejects.toThrow();
    expect(JSON.parse(readFileSync(path.join(fake.api.app.getPath('userData'), 'settings.json'), 'utf8'))).toEqual({
      enabled: false,
      port,
    });
  });
});

describe('shell rules', () => {
  it.each([
    ['odr://app/', 'allow'],
    ['odr://app/#/d/x', 'allow'],
    ['odr://other/', 'deny'],
    ['https://x.org', 'external'],
    ['http://x.org', 'external'],
    ['mailto:a@b.c', 'external'],
    ['file:///etc', 'deny'],
    ['javascript:void 0', 'deny'],
    ['not a url', 'deny'],
  ])('navigationPolicy(%s) = %s', (url, want) => expect(navigationPolicy(url)).toBe(want));

  it('restores saved bounds only when they are on a display', () => {
    const dir = tempDir('odr-bounds-');
    dirs.push(dir);
    const f = path.join(dir, 'w.json');
    const displays = [{ x: 0, y: 0, width: 1920, height: 1080 }];
    expect(loadBounds(f, displays)).toEqual({ width: 1360, height: 860 });
    writeFileSync(f, JSON.stringify({ x: 5000, y: 5000, width: 900, height: 700 }));
    expect(loadBounds(f, displays)).toEqual({ width: 900, height: 700 });
    writeFileSync(f, JSON.stringify({ x: 10, y: 10, width: 900, height: 700 }));
    expect(loadBounds(f, displays)).toMatchObject({ x: 10, y: 10 });
    writeFileSync(f, '{broken');
    expect(loadBounds(f, displays)).toEqual({ width: 1360, height: 860 });
  });

  it('menus carry the standard roles', () => {
    const roles = menuTemplate({
      isMac: false,
      appName: 'odr-desktop',
      revealDataDir: () => {},
      openHelp: () => {},
      checkForUpdates: () => {},
    }).map((m) => m.role);
    expect(roles).toEqual(['fileMenu', 'editMenu', 'viewMenu', 'windowMenu', 'help']);
    expect(
      menuTemplate({ isMac: true, appName: 'odr-desktop', revealDataDir: () => {}, openHelp: () => {}, checkForUpdates: () => {} })[0]!
        .role,
    ).toBe('appMenu');
  });
});
