import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The Electron binary npm downloaded on install, or null where that download failed. */
export function electronBinary(): string | null {
  try {
    const bin = createRequire(path.join(ROOT, 'package.json'))('electron') as string;
    return existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

export const ELECTRON_SKIP =
  'SKIPPED Electron e2e: the Electron binary is not installed (node_modules/electron has no dist/: its download failed); run it on a machine that can download Electron';
