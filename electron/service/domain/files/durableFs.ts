import { closeSync, copyFileSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync, type WriteFileOptions } from 'node:fs';
import { open, rename } from 'node:fs/promises';
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

/** Creates `dir` (and missing parents) and syncs the directory holding each one it made. */
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

/** writeFileSync whose bytes and name are on disk when it returns. */
export function writeFileDurableSync(file: string, data: string | Uint8Array, options: WriteFileOptions = {}): void {
  writeFileSync(file, data, { ...(typeof options === 'string' ? { encoding: options } : options), flush: true });
  syncDirSync(path.dirname(file));
}

/**
 * Copies `from` to `to` through `tmp` (same file system as `to`): a power cut leaves either no
 * file at `to` or the whole of it, never a part that a later "is it there?" would trust. The bytes
 * are synced here; the new names are noted in `dirs`, on disk after its next flush.
 */
export function copyFileNotedSync(dirs: DirSyncs, from: string, to: string, tmp: string): void {
  copyFileSync(from, tmp);
  syncFileSync(tmp);
  dirs.mkdir(path.dirname(to));
  dirs.renameSync(tmp, to);
}

/**
 * Directories holding names made but not synced yet, shared by every writer of one tree (the blob
 * store): each writer notes the names it makes, then one flush syncs each distinct directory once
 * for all of them, in parallel, before any of their rows commit. A page of pulled files or a
 * multi-file upload pays one sync per directory, not one to three per file.
 *
 * A name another writer made counts too: a writer that finds `ab/cd` already made (mkdir made
 * nothing) still must not commit before the writer that made it has synced `ab`. So a flush
 * also waits for the round under way, and `mkdir` notes what it made in the same tick as it
 * makes it (synchronously: a mkdir of an existing directory is a few microseconds).
 */
export class DirSyncs {
  private pending = new Set<string>();
  /** The directories of the round under way, and its promise. */
  private running: { dirs: string[]; done: Promise<void> } | null = null;
  /** The round that starts once the running one ends, shared by everyone who asks meanwhile. */
  private queued: Promise<void> | null = null;

  /** `sync`: how one directory is synced (tests wrap syncDir to hold a round open). */
  constructor(private readonly sync: (dir: string) => Promise<void> = syncDir) {}

  /** Creates `dir` and missing parents, noting the directory holding each new level. */
  mkdir(dir: string): void {
    for (const made of madeLevels(mkdirSync(dir, { recursive: true }), dir)) this.pending.add(path.dirname(made));
  }

  async rename(from: string, to: string): Promise<void> {
    await rename(from, to);
    this.pending.add(path.dirname(to));
  }

  renameSync(from: string, to: string): void {
    renameSync(from, to);
    this.pending.add(path.dirname(to));
  }

  /** Notes `dir` as holding a name a writer relies on (one another writer may have made). */
  note(dir: string): void {
    this.pending.add(dir);
  }

  /** Every name noted so far (by any writer) is on disk when this settles. */
  flush(): Promise<void> {
    if (this.queued) return this.queued;
    if (this.running) {
      if (this.pending.size === 0) return this.running.done;
      const after = this.running.done.catch(() => undefined);
      return (this.queued = after.then(() => {
        this.queued = null;
        return this.round();
      }));
    }
    return this.pending.size ? this.round() : Promise.resolve();
  }

  /** flush() for synchronous writers: also syncs again the directories of a round under way. */
  flushSync(): void {
    const dirs = new Set([...this.pending, ...(this.running?.dirs ?? [])]);
    this.pending.clear();
    try {
      for (const dir of dirs) syncDirSync(dir);
    } catch (e) {
      for (const dir of dirs) this.pending.add(dir);
      throw e;
    }
  }

  private round(): Promise<void> {
    const dirs = [...this.pending];
    this.pending.clear();
    const done = Promise.all(dirs.map(this.sync)).then(
      () => undefined,
      (e: unknown) => {
        // Not known synced: the next flush tries them again.
        for (const dir of dirs) this.pending.add(dir);
        throw e;
      },
    );
    const running = { dirs, done };
    this.running = running;
    const clear = () => {
      if (this.running === running) this.running = null;
    };
    done.then(clear, clear);
    return done;
  }
}
