import { closeSync, copyFileSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync, type WriteFileOptions } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import path from 'node:path';

// A file's bytes synced to disk are not enough to survive a power cut: the directory entry that
// names it (a new file, a rename into place) lives in its directory, which needs a sync of its own.
// Windows cannot open a directory for a sync, and NTFS journals its entries itself.
const DIRS_SYNC = process.platform !== 'win32';

/** Syncs a directory's entries (new names, renames) to disk. */
export async function syncDir(dir: string): Promise<void> {
  if (!DIRS_SYNC) return;
  const h = await open(dir, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

export function syncDirSync(dir: string): void {
  if (!DIRS_SYNC) return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The directories `mkdir -p` made, from `first` (the outermost) down to `dir`. */
function madeLevels(first: string | undefined, dir: string): string[] {
  if (!first) return [];
  first = path.resolve(first);
  const levels = [path.resolve(dir)];
  while (levels[0] !== first && path.dirname(levels[0]!) !== levels[0]) levels.unshift(path.dirname(levels[0]!));
  return levels;
}

/**
 * Creates `dir` (and missing parents) and syncs the directory holding each one it made, so the
 * new directories survive a power cut with what goes into them (a new blob makes two levels).
 */
export async function mkdirDurable(dir: string): Promise<void> {
  for (const made of madeLevels(await mkdir(dir, { recursive: true }), dir)) await syncDir(path.dirname(made));
}

export function mkdirDurableSync(dir: string): void {
  for (const made of madeLevels(mkdirSync(dir, { recursive: true }), dir)) syncDirSync(path.dirname(made));
}

/** Syncs a file's bytes (one written without a flush of its own: a copy, a stream). */
export function syncFileSync(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Renames synced bytes into place and syncs the directory, so the new name is on disk too. */
export async function renameDurable(from: string, to: string): Promise<void> {
  await rename(from, to);
  await syncDir(path.dirname(to));
}

/** writeFileSync whose bytes and name are on disk when it returns. */
export function writeFileDurableSync(file: string, data: string | Uint8Array, options: WriteFileOptions = {}): void {
  writeFileSync(file, data, { ...(typeof options === 'string' ? { encoding: options } : options), flush: true });
  syncDirSync(path.dirname(file));
}

/**
 * Copies `from` to `to` through `tmp` (same file system as `to`): a power cut leaves either no
 * file at `to` or the whole of it, never a part that a later "is it there?" would trust.
 */
export function copyFileDurableSync(from: string, to: string, tmp: string): void {
  copyFileSync(from, tmp);
  syncFileSync(tmp);
  mkdirDurableSync(path.dirname(to));
  renameSync(tmp, to);
  syncDirSync(path.dirname(to));
}
