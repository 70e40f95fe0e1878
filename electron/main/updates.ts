import type * as Electron from 'electron';

/** The part of electron-updater's AppUpdater that "Check for Updates" uses (injected in tests). */
export interface Updater {
  autoDownload: boolean;
  checkForUpdates(): Promise<{ updateInfo: { version: string }; isUpdateAvailable?: boolean } | null>;
}

export interface UpdateReport {
  kind: 'newer' | 'current' | 'unavailable' | 'failed';
  message: string;
}

/**
 * Asks the release feed (GitHub releases, configured by electron-builder's `publish`) whether a
 * newer version exists, and says what it found. Only installed builds carry an update feed;
 * a development run says so instead of pretending to check.
 */
export async function checkForUpdates(opts: {
  updater: Updater | null;
  currentVersion: string;
  isPackaged: boolean;
}): Promise<UpdateReport> {
  if (!opts.isPackaged || !opts.updater) {
    return {
      kind: 'unavailable',
      message: `Updates are checked only in an installed build; this is a development run of ${opts.currentVersion}.`,
    };
  }
  try {
    opts.updater.autoDownload = true;
    const result = await opts.updater.checkForUpdates();
    if (!result) return { kind: 'unavailable', message: 'This build has no update feed configured.' };
    const found = result.updateInfo.version;
    const newer = result.isUpdateAvailable ?? found !== opts.currentVersion;
    return newer
      ? {
          kind: 'newer',
          message: `Version ${found} is available (you have ${opts.currentVersion}); it is downloading and installs when you quit.`,
        }
      : { kind: 'current', message: `You have the latest version (${opts.currentVersion}).` };
  } catch (e) {
    return { kind: 'failed', message: `Could not check for updates: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** The menu action: check, then show the answer in a message box. */
export function updateMenuAction(opts: Parameters<typeof checkForUpdates>[0], dialog: Pick<Electron.Dialog, 'showMessageBox'> | undefined) {
  return async (): Promise<UpdateReport> => {
    const report = await checkForUpdates(opts);
    await dialog?.showMessageBox({
      type: report.kind === 'failed' ? 'error' : 'info',
      title: 'Check for Updates',
      message: report.message,
      buttons: ['OK'],
    });
    return report;
  };
}
