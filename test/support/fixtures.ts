import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

// The real ODR exports live in the reference kit beside the repository (../shared), never in it.
export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures/odr-real');
export const haveFixtures = existsSync(FIXTURES);
export const fixture = (name: string) => path.join(FIXTURES, name);

/** describe() that skips, saying why, when ../shared is absent (a clone outside this workplace). */
export function describeFixtures(name: string, fn: () => void) {
  if (!haveFixtures) {
    describe.skip(`${name} — skipped: reference fixtures not found at ${FIXTURES}`, fn);
    return;
  }
  describe(name, fn);
}
