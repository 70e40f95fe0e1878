import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createService, type Service } from './service.js';
import { DEFAULT_PORT, defaultDataDir } from './host/paths.js';
import { listen } from './host/http.js';
import { serveRenderer } from './host/static.js';
import { importFile } from './domain/import/importFile.js';
import { importCsv, openCsv, previewCsv } from './domain/import/csvImport.js';
import { OdrError } from './domain/errors.js';
import type { User } from './domain/users.js';
import type { ServiceConfig } from './domain/context.js';

const HELP = `odr-desktop service

  npm run serve -- [--port P] [--data DIR] [--no-auto-login]
  npm run odr -- import FILE [--data DIR] [--replace] [--master] [--user EMAIL]
  npm run odr -- import-csv FILE --dataset UUID [--map "Column=FIELD_UUID"]... [--dry-run] [--data DIR] [--user EMAIL]
  npm run odr -- user add --email E --password P [--super] [--data DIR]
  npm run odr -- user password --email E --password P [--data DIR]
  npm run odr -- api-token [--user EMAIL] [--data DIR]
  npm run odr -- sync --remote URL --user U --password P [--dataset UUID]... [--data DIR]

Without --data the per-user data dir is used (${defaultDataDir()}).
First run: ODR_ADMIN_EMAIL / ODR_ADMIN_PASSWORD name the super-user (a password is generated
and printed once when none is given).`;

const rendererDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/renderer');

/**
 * Test-only settings from the environment: ODR_TOKEN_TTL (seconds), ODR_COUNT_CAP (the e2e
 * spec's small dataset), ODR_EVENT_QUEUE_EVENTS / ODR_EVENT_QUEUE_CHARS (an event stream's
 * bound, overflowed by the e2e resync spec).
 */
function envConfig(): Partial<ServiceConfig> {
  const config: Partial<ServiceConfig> = {};
  const settings: [string, keyof ServiceConfig][] = [
    ['ODR_TOKEN_TTL', 'tokenTtlSeconds'],
    ['ODR_COUNT_CAP', 'countCap'],
    ['ODR_EVENT_QUEUE_EVENTS', 'eventQueueEvents'],
    ['ODR_EVENT_QUEUE_CHARS', 'eventQueueChars'],
  ];
  for (const [name, key] of settings) {
    const raw = process.env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
    config[key] = n;
  }
  return config;
}

async function open(dataDir: string, extra: Partial<Parameters<typeof createService>[0]> = {}): Promise<Service> {
  const service = await createService({
    dataDir,
    admin: { email: process.env.ODR_ADMIN_EMAIL, password: process.env.ODR_ADMIN_PASSWORD },
    config: envConfig(),
    liveSync: false, // only the long-running `serve` syncs in the background
    ...extra,
  });
  if (service.firstRun) {
    const { email, generatedPassword } = service.firstRun;
    console.log(
      `first run: created super-user ${email}` +
        (generatedPassword ? ` with password ${generatedPassword}  (shown once; change it with: npm run odr -- user password)` : ''),
    );
  }
  return service;
}

function actingUser(service: Service, email: string | undefined): User {
  const user = email ? service.domain.users.findByEmail(email) : service.domain.users.firstSuperUser();
  if (!user) throw new Error(email ? `no user ${email} in this data dir` : 'no user in this data dir');
  return user;
}

async function serve(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { port: { type: 'string' }, data: { type: 'string' }, 'no-auto-login': { type: 'boolean' } },
  });
  const dataDir = path.resolve(values.data ?? defaultDataDir());
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  const service = await open(dataDir, { autoLogin: !values['no-auto-login'], static: serveRenderer(rendererDist), liveSync: true });
  const host = await listen(service, port);
  console.log(`data dir ${dataDir}`);
  console.log(`listening on ${host.url}/api/v4`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await host.close();
    await service.close();
    console.log(`stopped (${signal})`);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

async function runImport(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { data: { type: 'string' }, replace: { type: 'boolean' }, master: { type: 'boolean' }, user: { type: 'string' } },
  });
  const file = positionals[0];
  if (!file) throw new Error('usage: npm run odr -- import FILE [--data DIR]');
  const service = await open(path.resolve(values.data ?? defaultDataDir()));
  try {
    const started = Date.now();
    let last = 0;
    const summary = await importFile(service.domain, actingUser(service, values.user), path.resolve(file), {
      replace: values.replace,
      master: values.master,
      onProgress: (f, detail) => {
        if (Date.now() - last > 1000) {
          last = Date.now();
          process.stderr.write(`  ${Math.round(f * 100)} %  ${detail}\n`);
        }
      },
    });
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (summary.kind === 'template') {
      console.log(`imported template: ${summary.datasets.length} datatype(s), ${summary.fields} field(s) in ${secs} s`);
      for (const ds of summary.datasets) console.log(`  dataset ${ds.uuid}  ${ds.name}`);
    } else {
      const r = summary.records;
      console.log(
        `imported ${r.imported} record(s) (+${r.children} child records, ${summary.files} file entries), skipped ${r.skipped} already present, in ${secs} s`,
      );
      for (const ds of summary.datasets) console.log(`  dataset ${ds.uuid}  ${ds.name}: ${ds.records} record(s)`);
    }
  } finally {
    await service.close();
  }
}

async function user(args: string[]) {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, password: { type: 'string' }, super: { type: 'boolean' }, data: { type: 'string' } },
  });
  if (!values.email || !values.password) throw new Error('--email and --password are required');
  const service = await open(path.resolve(values.data ?? defaultDataDir()));
  try {
    if (sub === 'add') {
      const u = await service.domain.users.create({ email: values.email, password: values.password, isSuper: values.super });
      console.log(`created ${u.isSuper ? 'super-user' : 'user'} ${u.email}`);
    } else if (sub === 'password') {
      await service.domain.users.setPassword(values.email, values.password);
      console.log(`password changed for ${values.email}`);
    } else {
      throw new Error('usage: npm run odr -- user add|password --email E --password P');
    }
  } finally {
    await service.close();
  }
}

async function apiToken(args: string[]) {
  const { values } = parseArgs({ args, options: { user: { type: 'string' }, data: { type: 'string' } } });
  const service = await open(path.resolve(values.data ?? defaultDataDir()));
  try {
    const u = actingUser(service, values.user);
    console.log(`x-auth API token for ${u.email} (replaces any earlier one):`);
    console.log(service.domain.users.issueApiToken(u.id));
  } finally {
    await service.close();
  }
}

async function sync(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      data: { type: 'string' },
      remote: { type: 'string' },
      user: { type: 'string' },
      password: { type: 'string' },
      dataset: { type: 'string', multiple: true },
    },
  });
  if (!values.remote || !values.user || !values.password)
    throw new Error('usage: npm run odr -- sync --remote URL --user U --password P [--dataset UUID]');
  const service = await open(path.resolve(values.data ?? defaultDataDir()));
  try {
    const remoteId = await service.sync.addRemote(values.remote, values.user, values.password);
    const me = actingUser(service, undefined);
    let datasets = values.dataset;
    if (!datasets?.length) {
      const known = service.sync.status().datasets.filter((x) => (x as { remote_id: number }).remote_id === remoteId);
      if (!known.length) datasets = (await service.sync.remoteDatasets(remoteId)).databases.map((x) => x.unique_id);
    }
    const started = Date.now();
    const s = await service.sync.run(remoteId, me, datasets);
    console.log(
      `sync with ${values.remote}: pushed ${s.pushed} (created ${s.created}), pulled ${s.pulled}, ` +
        `${s.pending} pending, ${s.conflicts} conflict(s), ${s.parked} needing attention, ${s.removedOnServer} removed on the server, ` +
        `${s.passes} pass(es) in ${((Date.now() - started) / 1000).toFixed(1)} s${s.error ? ` — stopped: ${s.error}` : ''}`,
    );
    if (s.error) process.exitCode = 3;
  } finally {
    await service.close();
  }
}

/** CSV rows into a dataset; exit code 3 when some rows were refused (they are listed). */
async function importCsvCommand(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      dataset: { type: 'string' },
      map: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
      data: { type: 'string' },
      user: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (!file || !values.dataset) throw new Error('usage: npm run odr -- import-csv FILE --dataset UUID [--map "Column=FIELD_UUID"]...');
  const mapping: Record<string, string> = {};
  for (const m of values.map ?? []) {
    const at = m.lastIndexOf('=');
    if (at < 0) throw new Error(`--map "${m}": write it as "Column=FIELD_UUID" (nothing after "=" leaves the column out)`);
    mapping[m.slice(0, at)] = m.slice(at + 1);
  }
  const service = await open(path.resolve(values.data ?? defaultDataDir()));
  try {
    const user = actingUser(service, values.user);
    const plan = await openCsv(service.domain, user, path.resolve(file), values.dataset, mapping);
    for (const c of plan.resolved.columns) {
      const f = c.field_uuid ? plan.dt.fieldsByUuid.get(c.field_uuid) : undefined;
      console.log(`  column "${c.name}" → ${f ? `${f.name} (${f.fieldtype}${c.source === 'guess' ? ', by name' : ''})` : 'left out'}`);
    }
    let failures;
    if (values['dry-run']) {
      const p = await previewCsv(plan);
      console.log(`dry run: ${p.total - p.failed_rows} of ${p.total} row(s) would be imported, ${p.failed_rows} refused`);
      failures = p;
    } else {
      let last = Date.now();
      const r = await importCsv(service.domain, user, plan, (f) => {
        if (Date.now() - last > 1000) {
          last = Date.now();
          process.stderr.write(`  ${Math.round(f * 100)} %\n`);
        }
        return true;
      });
      const rate = r.seconds > 0 ? Math.round(r.total / r.seconds) : r.total;
      console.log(
        `imported ${r.imported} of ${r.total} row(s) into ${plan.dt.name} (${plan.dt.uuid}) in ${r.seconds.toFixed(1)} s (${rate} rows/s); ${r.failed_rows} refused`,
      );
      failures = r;
    }
    for (const f of failures.failures) console.log(`  row ${f.row}${f.column === null ? '' : `, column "${f.column}"`}: ${f.message}`);
    if (failures.failures_truncated) console.log('  … (only the first 10,000 problems are listed)');
    if (failures.failed_rows > 0) process.exitCode = 3;
  } finally {
    await service.close();
  }
}

const commands: Record<string, (args: string[]) => Promise<void>> = {
  serve,
  import: runImport,
  'import-csv': importCsvCommand,
  user,
  'api-token': apiToken,
  sync,
};

const [cmd, ...rest] = process.argv.slice(2);
const run = cmd ? commands[cmd] : undefined;
if (!run) {
  console.log(HELP);
  process.exit(cmd ? 2 : 0);
}
run(rest).catch((e: unknown) => {
  console.error(`error: ${e instanceof OdrError || e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
