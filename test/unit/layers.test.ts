import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

// The layer rules of docs/architecture.md, checked on every import statement.

function files(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  let out: string[] = [];
  for (const name of readdirSync(abs)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = path.join(abs, name);
    if (statSync(p).isDirectory()) out = out.concat(files(path.join(dir, name)));
    else if (/\.(ts|tsx)$/.test(name)) out.push(path.join(dir, name));
  }
  return out;
}

function imports(file: string): string[] {
  const src = readFileSync(path.join(ROOT, file), 'utf8');
  return [...src.matchAll(/(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2]!,
  );
}

function resolved(file: string, spec: string): string {
  return spec.startsWith('.') ? path.normalize(path.join(path.dirname(file), spec)) : spec;
}

describe('layers', () => {
  // papaparse: a pure-JS CSV parser the plugin parsers in shared/plugins build on; indefinite:
  // the pure-JS a/an rule shared/article.ts words messages with.
  it('shared/ imports nothing platform-specific (only zod, papaparse, indefinite and itself)', () => {
    const bad = files('shared').flatMap((f) =>
      imports(f)
        .filter((s) => !(['zod', 'papaparse', 'indefinite'].includes(s) || (s.startsWith('.') && resolved(f, s).startsWith('shared'))))
        .map((s) => `${f}: ${s}`),
    );
    expect(bad).toEqual([]);
  });

  it('electron/service never imports electron, the renderer or the main process', () => {
    const bad = files('electron/service').flatMap((f) =>
      imports(f)
        .filter(
          (s) => s === 'electron' || s.startsWith('electron/') || (s.startsWith('.') && /^(renderer|electron\/main)/.test(resolved(f, s))),
        )
        .map((s) => `${f}: ${s}`),
    );
    expect(bad).toEqual([]);
  });

  it('the renderer reaches data only through shared/ (no service, no Node, no SQLite)', () => {
    const list = files('renderer/src');
    expect(list.length).toBeGreaterThan(10);
    const bad = list.flatMap((f) =>
      imports(f)
        .filter(
          (s) =>
            s.startsWith('node:') || s === 'better-sqlite3' || s === 'electron' || (s.startsWith('.') && /^electron/.test(resolved(f, s))),
        )
        .map((s) => `${f}: ${s}`),
    );
    expect(bad).toEqual([]);
  });

  it('in the renderer only lib/api (HTTP) and lib/events (the event stream) open connections', () => {
    const bad = files('renderer/src')
      .filter((f) => !/lib\/(api|events)\.ts$/.test(f))
      .filter((f) => /\bfetch\(|XMLHttpRequest|EventSource|WebSocket/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(bad).toEqual([]);
  });
});
