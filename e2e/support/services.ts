import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** How many seeded services the browser tests run on: one project, one worker at a time and one
 * data dir each (playwright.config.ts deals the spec files; globalSetup.ts starts the services). */
export const SERVICES = 2;

/**
 * The spec files of `dir` dealt to the services: the largest first, each to the service with the
 * fewest bytes of specs so far, which balances their run times within about 10 %. The deal
 * depends only on the files, so a spec always follows the same specs on the same data.
 */
export function dealSpecs(dir: string): string[][] {
  const bySize = readdirSync(dir)
    .filter((f) => f.endsWith('.spec.ts'))
    .map((f) => ({ f, bytes: statSync(path.join(dir, f)).size }))
    .sort((a, b) => b.bytes - a.bytes || a.f.localeCompare(b.f));
  const load = Array.from({ length: SERVICES }, () => 0);
  const dealt = Array.from({ length: SERVICES }, () => [] as string[]);
  for (const { f, bytes } of bySize) {
    const n = load.indexOf(Math.min(...load));
    load[n]! += bytes;
    dealt[n]!.push(f);
  }
  return dealt;
}

// `playwright test` options this reading understands: those taking a value, and flags. Any other
// option (--project, --last-failed, --only-changed, --test-list, …) may change which files run
// in ways not read here, so then every service is seeded.
const WITH_VALUE = new Set([
  '-g',
  '--grep',
  '--grep-invert',
  '-j',
  '--workers',
  '--repeat-each',
  '--retries',
  '--output',
  '--reporter',
  '--trace',
  '--timeout',
  '--max-failures',
]);
const FLAGS = new Set(['-x', '--headed', '--quiet', '--forbid-only', '--pass-with-no-tests', '--fail-on-flaky-tests']);

/**
 * Which services the files named on the command line (`argv`, the runner's own) run on: a
 * one-spec run need not seed the other. Every service when no file is named (CI, `npm test`) or
 * the command line holds anything else. A file argument is matched as Playwright matches it:
 * a case-insensitive regular expression over the spec's absolute path, `:line[:column]` cut off.
 * Options like --grep only narrow the tests within those files, so they keep the answer safe.
 */
export function servicesToSeed(dir: string, argv: string[]): number[] {
  const all = Array.from({ length: SERVICES }, (_, n) => n);
  const at = argv.indexOf('test', 2);
  if (at < 0 || argv.slice(2, at).some((a) => !a.startsWith('-'))) return all;
  const files: string[] = [];
  for (let i = at + 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) files.push(a);
    else if (WITH_VALUE.has(a)) i++;
    else if (a.includes('=') && WITH_VALUE.has(a.slice(0, a.indexOf('=')))) continue;
    else if (!FLAGS.has(a)) return all;
  }
  if (!files.length) return all;
  const res = files.map((f) => {
    const file = /^(.*?):(\d+):?(\d+)?$/.exec(f)?.[1] ?? f;
    const m = /^\/(.*)\/([gi]*)$/.exec(file);
    // Without the g flag: one expression tests many paths, and g would carry lastIndex over.
    return m ? new RegExp(m[1]!, m[2]!.replace('g', '')) : new RegExp(file, 'i');
  });
  const runs = (f: string) => {
    const abs = path.join(dir, f);
    return res.some((re) => re.test(abs) || re.test(abs.split(path.sep).join('/')));
  };
  const some = all.filter((n) => dealSpecs(dir)[n]!.some(runs));
  // None: Playwright will say that no test matched; seeding all keeps any misreading harmless.
  return some.length ? some : all;
}
