import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceChild } from './serviceProcess.js';

const ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../service/host/child.ts');

/**
 * The service process as a Node child (child_process.fork, run through tsx): what stands in
 * for Electron's utilityProcess where Electron cannot run — tests and benches.
 */
export function forkServiceChild(): ServiceChild {
  const child = fork(ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  backgroundPriority(child.pid);
  return {
    post: (m) => {
      if (child.connected) child.send(m);
    },
    onMessage: (fn) => child.on('message', (m) => fn(m as Parameters<typeof fn>[0])),
    onExit: (fn) => child.on('exit', (code) => fn(code)),
    kill: () => child.kill(),
  };
}

/**
 * The service's bulk work (imports, sync, thumbnails) yields the CPU to the window's process
 * when they compete: on a busy machine an import takes a little longer, menus stay responsive.
 */
export function backgroundPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    os.setPriority(pid, 10);
  } catch {
    /* not permitted here: normal priority */
  }
}
