import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Times `fn` n times (after a warm-up); returns p50/p99 in ms, and `cpu50`, the median CPU time
 * of this process per call (ms), every thread's (SQLite's checkpointer worker included), so
 * notes call it process CPU: on a shared machine the wall time also holds the wait for a core,
 * the CPU time only the work. The warm-up calls fn(warmFrom + i): by default the first
 * measured indices again; a figure of distinct items passes `n` so the warm-up warms the code,
 * not the items it then measures (they would be cache hits).
 */
export async function timeIt(
  n: number,
  fn: (i: number) => unknown,
  warm = Math.min(200, n),
  warmFrom = 0,
): Promise<{ p50: number; p99: number; perSec: number; cpu50: number }> {
  for (let i = 0; i < warm; i++) await fn(warmFrom + i);
  const ts: number[] = [];
  const cpu: number[] = [];
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn(i);
    ts.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const total = performance.now() - start;
  ts.sort((a, b) => a - b);
  return { p50: percentile(ts, 50), p99: percentile(ts, 99), perSec: (n / total) * 1000, cpu50: median(cpu) };
}

/**
 * Reads a file through once (sequentially, 8 MB at a time) so the OS page cache holds it: a
 * database only partly resident answers its first-touch reads from the disk, which on this shared
 * machine depends on what other processes read lately, not on our code. Returns the MB/s: a rate
 * far above the disk's means most of it was resident already.
 */
export function readThrough(file: string): { secs: number; mbPerSec: number } {
  if (!existsSync(file)) return { secs: 0, mbPerSec: NaN };
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(8 * 2 ** 20);
  const t0 = performance.now();
  let bytes = 0;
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, bytes)) > 0;) bytes += n;
  } finally {
    closeSync(fd);
  }
  const secs = (performance.now() - t0) / 1000;
  return { secs, mbPerSec: bytes / 2 ** 20 / secs };
}

/**
 * How much of a file the OS page cache holds now (bytes), by util-linux's fincore; NaN where it
 * is missing. Unlike readThrough's rate, it does not change what it measures.
 */
export function residentBytes(file: string): number {
  const r = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : NaN;
}

/**
 * Watches the garbage collector's pauses from now on: a figure taken while the heap still holds
 * a large import's garbage pays for collecting it, one taken later does not.
 */
export function gcPauses(): { stop: () => { ms: number; count: number } } {
  let ms = 0;
  let count = 0;
  const add = (entries: PerformanceEntry[]) => {
    for (const e of entries) {
      ms += e.duration;
      count++;
    }
  };
  const obs = new PerformanceObserver((list) => add(list.getEntries()));
  obs.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      // Entries are delivered later: those not yet delivered are taken here.
      add(obs.takeRecords());
      obs.disconnect();
      return { ms, count };
    },
  };
}

/** The middle of a list of samples (the upper middle for an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Runs `a` and `b` alternately (a, b, a, b, …), `rounds` times each, so the drift of a machine
 * shared with other work hits both alike: compare them by the median of the rounds' ratios, not
 * by the ratio of two figures taken minutes apart. Each gets the round's number.
 */
export async function alternate<T>(
  rounds: number,
  a: (round: number) => Promise<T>,
  b: (round: number) => Promise<T>,
): Promise<{ as: T[]; bs: T[] }> {
  const as: T[] = [];
  const bs: T[] = [];
  for (let i = 0; i < rounds; i++) {
    as.push(await a(i));
    bs.push(await b(i));
  }
  return { as, bs };
}

/** Runs `fn` n times in sequence; its samples' median and worst (a time: lower is better). */
export async function medianOf(n: number, fn: (i: number) => Promise<number>): Promise<{ median: number; worst: number }> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await fn(i));
  return { median: median(xs), worst: Math.max(...xs) };
}

/** The best of `runs` runs of `fn` (a rate: higher is better). */
export async function best(runs: number, fn: () => Promise<number>): Promise<number> {
  let top = 0;
  for (let i = 0; i < runs; i++) top = Math.max(top, await fn());
  return top;
}

/** Wall-clock seconds `fn` takes, with its result. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ secs: number; result: T }> {
  const t0 = performance.now();
  const result = await fn();
  return { secs: (performance.now() - t0) / 1000, result };
}

/** MB/s of the bytes `fn` moves (it answers their count). */
export async function mbPerSec(fn: () => Promise<number>): Promise<number> {
  const { secs, result } = await timed(fn);
  return result / 2 ** 20 / secs;
}

export interface ChildStats {
  maxRssMb?: number;
  /** What the resident memory was made of at its highest sample (bench/server.ts). */
  peakParts?: string;
  /** CPU time used so far, user + system, µs. */
  cpuUs?: number;
  batches?: number;
  operations?: number;
  /** Time inside group-commit transactions, commit and fsync included, ms. */
  commitMs?: number;
}

export interface Child {
  proc: ChildProcess;
  port: number;
  /** A bench server's counters now (bench/server.ts answers; other helpers never do). */
  stats: () => Promise<ChildStats>;
  stop: () => Promise<ChildStats>;
}

/** Forks a TypeScript bench helper (through tsx) and waits for it to report its port. */
export function forkTs(file: string, args: string[]): Promise<Child> {
  const proc = fork(path.join(BENCH_DIR, file), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // A bench that throws must not leave a server holding the port and the database.
  const kill = () => proc.kill('SIGKILL');
  process.once('exit', kill);
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
    proc.once('message', (m: { port: number }) =>
      resolve({
        proc,
        port: m.port,
        stats: () =>
          new Promise((res) => {
            const on = (r: { stats?: ChildStats }) => {
              if (!r.stats) return;
              proc.off('message', on);
              res(r.stats);
            };
            proc.on('message', on);
            proc.send({ cmd: 'stats' });
          }),
        stop: () =>
          new Promise((res) => {
            proc.removeAllListeners('exit');
            let stats: ChildStats = {};
            proc.on('message', (s: ChildStats & { stats?: ChildStats }) => {
              if (!s.stats) stats = s;
            });
            proc.once('exit', () => {
              process.off('exit', kill);
              res(stats);
            });
            proc.send({ cmd: 'stop' });
          }),
      }),
    );
  });
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

export interface Row {
  section: string;
  name: string;
  /** The record count a figure was measured at (the README table's column); none: scale-free. */
  scale?: number;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
  note?: string;
}

export interface BenchContext {
  /** The largest scale: the data dir the startup and ui sections use holds this many. */
  records: number;
  /** The scales the core section measures, ascending (the cost curve's columns). */
  scales: number[];
  /** `--reuse`: open the data dirs a previous run built (and keep them) instead of building them again. */
  reuse: boolean;
  /** .bench/ in the project: generated data and data dirs (git-ignored). */
  work: string;
  rows: Row[];
  add: (row: Row) => void;
}

export function freshDir(ctx: BenchContext, name: string): string {
  const d = path.join(ctx.work, name);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  return d;
}

export const fileSize = (f: string) => (existsSync(f) ? statSync(f).size : 0);

/** "10k", "100k", "1M": a scale as column heads and row tags show it. */
export const scaleTag = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n));

/** The 1-minute load average, rounded: printed with every section since the machine is shared. */
export const load1 = () => os.loadavg()[0]!.toFixed(1);
