import { expect, test } from '@playwright/test';
import { baseUrl, screenshot } from './support/app.js';

// The Settings panel is the renderer's side of the preload bridge, which exists only inside
// Electron (its main-process side is tested under Node in test/main). Here a stand-in bridge
// records what the panel asks for, in a real Chromium against the real service.

test('desktop settings: data dir, and the loopback listener turned on with a chosen port', async ({ page }) => {
  await page.addInitScript(() => {
    const calls: unknown[] = [];
    let state = { settings: { enabled: false, port: 8460 }, url: null as string | null };
    (window as unknown as { odrCalls: unknown[] }).odrCalls = calls;
    (window as unknown as { odrDesktop: unknown }).odrDesktop = {
      appInfo: async () => ({ version: '0.1.0', dataDir: '/home/ada/.config/odr-desktop/data' }),
      revealDataDir: async () => {
        calls.push('reveal');
        return '';
      },
      openExternal: async () => undefined,
      loopback: async () => state,
      setLoopback: async (s: { enabled: boolean; port: number }) => {
        calls.push(s);
        state = { settings: s, url: s.enabled ? `http://127.0.0.1:${s.port}/api/v4` : null };
        return state;
      },
    };
  });
  await page.goto(baseUrl());
  await page.getByRole('button', { name: 'Settings' }).click();
  const panel = page.getByRole('complementary', { name: 'Settings' });
  await expect(panel.getByTestId('data-dir')).toHaveText('/home/ada/.config/odr-desktop/data');

  await panel.getByLabel('Port').fill('80');
  await panel.getByRole('checkbox', { name: 'Listen on 127.0.0.1' }).click();
  await expect(panel.getByRole('alert')).toContainText('1024 to 65535');
  await expect(panel.getByRole('checkbox', { name: 'Listen on 127.0.0.1' })).not.toBeChecked();

  await panel.getByLabel('Port').fill('8765');
  await panel.getByRole('checkbox', { name: 'Listen on 127.0.0.1' }).check();
  await expect(panel.getByRole('status')).toContainText('http://127.0.0.1:8765/api/v4');
  await expect(panel.getByLabel('Token')).not.toHaveValue('');
  await panel.getByRole('button', { name: 'Show in folder' }).click();
  expect(await page.evaluate(() => (window as unknown as { odrCalls: unknown[] }).odrCalls)).toEqual([
    { enabled: true, port: 8765 },
    'reveal',
  ]);
  await screenshot(page, '9-settings');
});

test('in a plain browser there is no Settings button (no desktop bridge)', async ({ page }) => {
  await page.goto(baseUrl());
  await expect(page.getByRole('button', { name: 'Jobs' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Settings' })).toHaveCount(0);
});
