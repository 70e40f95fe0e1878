import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';

/**
 * The disk's bare durable-write rate: `bytes` written at the end of a file, then fsync, one
 * after another for about `seconds` — what one SQLite WAL commit costs at the least.
 */
export function bareWriteFsyncRate(file: string, bytes = 4096, seconds = 3): { perSec: number; p50Ms: number } {
  const fd = openSync(file, 'w');
  const buf = Buffer.alloc(bytes, 7);
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  try {
    while (performance.now() < end && times.length < 100_000) {
      const t0 = performance.now();
      writeSync(fd, buf);
      fsyncSync(fd);
      times.push(performance.now() - t0);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  return { perSec: (times.length / total) * 1000, p50Ms: times[Math.floor(times.length / 2)]! };
}
