import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../../electron/service/service.js';

/**
 * A digest of EVERY table in the database (sqlite_master, FTS shadow tables included) and of the
 * content store's file names and sizes. The full-text index and its skip list are brought up to
 * date first, so a difference means the request itself changed something.
 */
export function digestAll(service: Service): string {
  service.domain.search.catchUp();
  service.domain.search.settleSkips();
  const db = service.ctx.db;
  const h = createHash('sha256');
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const t of tables) {
    h.update(`\n#${t}\n`);
    for (const row of db.prepare(`SELECT * FROM "${t}" ORDER BY 1`).raw().iterate() as IterableIterator<unknown[]>) {
      for (const v of row) h.update(v instanceof Uint8Array ? v : `${typeof v === 'string' ? 's' : 'n'}${String(v)}\u0000`);
      h.update('\n');
    }
  }
  const files = path.join(service.ctx.dataDir, 'files');
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(`${path.relative(files, p)}:${statSync(p).size}\n`);
    }
  };
  walk(files);
  return h.digest('hex');
}

/**
 * A cheap, exact "did anything write" mark for per-request checks: the service connection's
 * count of rows ever inserted, updated or deleted (rolled-back ones included, so it is stricter
 * than a digest) and the content store's file list. Pair with digestAll at batch boundaries.
 */
export function writeMark(service: Service): string {
  service.domain.search.catchUp();
  service.domain.search.settleSkips();
  const changes = service.ctx.db.prepare('SELECT total_changes()').pluck().get() as number;
  const files = path.join(service.ctx.dataDir, 'files');
  const names: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else names.push(path.join(dir, e.name));
    }
  };
  walk(files);
  return `${changes}|${names.sort().join(',')}`;
}
