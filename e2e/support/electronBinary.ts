import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The Electron binary npm downloaded on install, or null where that download failed. Found the
 * way the electron package finds it, without requiring the package: where the binary is missing,
 * its require tries the download again and prints a stack trace each time a spec file loads.
 */
export function electronBinary(): string | null {
  const pkg = path.join(ROOT, 'node_modules', 'electron');
  const pathFile = path.join(pkg, 'path.txt');
  const exe = existsSync(pathFile) ? readFileSync(pathFile, 'utf8') : '';
  if (!exe && !process.env.ELECTRON_OVERRIDE_DIST_PATH) return null;
  const bin = process.env.ELECTRON_OVERRIDE_DIST_PATH
    ? path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, exe || 'electron')
    : path.join(pkg, 'dist', exe);
  return existsSync(bin) ? bin : null;
}

export const ELECTRON_SKIP =
  'SKIPPED Electron e2e: the Electron binary is not installed (node_modules/electron has no dist/: its download failed); run it on a machine that can download Electron';
