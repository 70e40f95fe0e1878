import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that measure time against the machine's own noise (event-loop delay, a stall limit of a
 * few hundred ms): they run after the others, alone, so another test file's work is not in the
 * measurement.
 */
const ALONE = ['test/main/hop.test.ts', 'test/sync/stallClock.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          // Vitest's default is one fork per core less one: a single fork on a 2-core machine.
          // Most files wait on processes, sockets and timers, so two keep both cores busy.
          maxWorkers: Math.max(2, os.availableParallelism() - 1),
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
