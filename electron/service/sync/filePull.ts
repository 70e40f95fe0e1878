import { rm } from 'node:fs/promises';
import { getMimeType } from 'hono/utils/mime';
import type { Domain } from '../domain/domain.js';
import { OdrError, RightLost } from '../domain/errors.js';
import type { User } from '../domain/users.js';
import { stoppedFor, superUserNow } from './actingUser.js';
import type { BlobStore } from '../domain/files/blobStore.js';
import { probeImage, thumbnail } from '../domain/files/images.js';
import { PULL_STAGE_BUFFER, placeBlob, placeBuffer, stage, type Staged } from '../domain/files/ingest.js';
import type { JobReporter } from '../domain/jobRunner.js';
import type { FileRow } from '../store/rows.js';
import { syncFileStore, type SyncFileStore } from '../store/syncFiles.js';
import { refetchableTransaction } from '../store/tx.js';
import { RemoteError, type RemoteClient } from './remoteClient.js';

/**
 * A download that sends nothing for this long is given up (the next use tries again):
 * ODR_FILE_STALL_SECONDS, default 30 (tests shorten it).
 */
const stallMs = () => Number(process.env.ODR_FILE_STALL_SECONDS ?? 30) * 1000;
/** Files downloaded at once by a keep-offline job. */
const OFFLINE_CONCURRENCY = 3;

/**
 * Files whose bytes are only on the server (docs/sync.md §8): fetched on first use, as Zotero
 * does "as needed", or all at once for a dataset kept offline. The bytes go to the blob store
 * only after they match what the server lists (size, and the hash when its ETag carries one);
 * images get their thumbnails made here.
 */
export class FileFetcher {
  readonly files: SyncFileStore;
  private readonly inflight = new Map<string, Promise<FileRow>>();

  constructor(
    private readonly d: Domain,
    private readonly blobs: BlobStore,
    private readonly client: (remoteId: number) => RemoteClient,
  ) {
    this.files = syncFileStore(d.ctx.db);
  }

  /** The file with its bytes here: at once when they are, else fetched (one download per file at a time). */
  ensure(file: FileRow): Promise<FileRow> {
    if (file.content_hash) return Promise.resolve(file);
    let p = this.inflight.get(file.uuid);
    if (!p) {
      p = this.fetch(file).finally(() => this.inflight.delete(file.uuid));
      this.inflight.set(file.uuid, p);
    }
    return p;
  }

  /** The remote a file's dataset syncs with, or null (its bytes cannot be had). */
  remoteFor(file: FileRow): number | null {
    const rec = this.d.store.byRid(file.record_rid);
    if (!rec) return null;
    return this.files.remoteOfDataset(this.d.datatypeOf(this.d.store.topOf(rec)).uuid);
  }

  private async fetch(file: FileRow): Promise<FileRow> {
    if (file.parent_rid !== null) {
      // A derivative is made here from its original, never downloaded.
      const original = this.files.byRid(file.parent_rid);
      if (!original) throw new OdrError(404, `File ${file.uuid} has no original image`);
      await this.ensure(original);
      return this.files.byRid(file.rid) ?? file;
    }
    const remoteId = this.remoteFor(file);
    if (remoteId === null) {
      throw new OdrError(
        404,
        `The bytes of file ${file.uuid} are not stored here: it was imported as metadata only${file.source_href ? ` (source: ${file.source_href})` : ''}`,
      );
    }
    const remote = this.client(remoteId);
    const remoteUuid = this.files.remoteOf(file.uuid) ?? file.uuid;
    const what = `"${file.original_name}" (file ${file.uuid})`;
    let res: Response;
    try {
      res = await remote.download(remoteUuid);
    } catch (e) {
      if (!(e instanceof RemoteError)) throw e;
      throw new OdrError(
        e.status === undefined ? 503 : 502,
        e.status === undefined
          ? `Could not fetch ${what} from ${remote.baseUrl}: the server did not answer (${e.message})`
          : `Could not fetch ${what} from ${remote.baseUrl}: the server answered ${e.message}`,
      );
    }
    const staged = await this.receive(res, what, remote.baseUrl);
    try {
      return await this.keep(file, staged, res.headers.get('content-type'));
    } catch (e) {
      // Kept bytes left the tmp area (moved, or dropped for an equal copy); refused ones go here.
      await rm(staged.tmp, { force: true });
      throw e;
    }
  }

  /** Streams the body into the store's tmp area, checked against the server's size and hash. */
  private async receive(res: Response, what: string, from: string): Promise<Staged> {
    const refused = (why: string) => new OdrError(502, `Could not fetch ${what} from ${from}: ${why}; nothing was kept`);
    if (!res.body) throw refused('the answer had no body');
    // The web stream is read directly: a Node stream adapter and transforms in between cost a
    // third of the throughput. The watchdog only notes when each wait for the server began; its
    // one timer checks that and cancels the read when the body stalls. Time spent writing to
    // the disk (a drain, a flush) is not the server's: the clock restarts at each read.
    const reader = res.body.getReader();
    const limit = stallMs();
    let last = performance.now();
    let reading = false;
    let stalled: Error | undefined;
    const check = () => {
      const quiet = reading ? performance.now() - last : 0;
      if (quiet < limit) return void (timer = setTimeout(check, limit - quiet));
      stalled = new Error(`no bytes for ${limit / 1000} s`);
      void reader.cancel(stalled).catch(() => undefined);
    };
    let timer = setTimeout(check, limit);
    async function* chunks() {
      for (;;) {
        last = performance.now();
        reading = true;
        const { done, value } = await reader.read();
        reading = false;
        if (stalled) throw stalled;
        if (done) return;
        yield value;
      }
    }
    try {
      return await stage(this.blobs, chunks(), Number.MAX_SAFE_INTEGER, PULL_STAGE_BUFFER);
    } catch (e) {
      await reader.cancel().catch(() => undefined);
      throw refused(`the download broke off (${(e as Error).message})`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Checks what arrived and fills the file row (and the image's thumbnails) in one commit. */
  private async keep(file: FileRow, staged: Staged, contentType: string | null): Promise<FileRow> {
    const what = `"${file.original_name}" (file ${file.uuid})`;
    const refused = (why: string) => new OdrError(502, `Could not fetch ${what}: ${why}; nothing was kept`);
    // Image bytes are re-encoded by the server (docs/odr-server.md §4.4): only files keep their size.
    if (!file.is_image && file.file_size !== null && staged.size !== file.file_size) {
      throw refused(`the server sent ${staged.size} bytes but lists the file as ${file.file_size} bytes`);
    }
    const info = file.is_image ? await probeImage(staged.tmp) : null;
    if (file.is_image && !info) throw refused('the server sent bytes that are not an image');
    const th = info ? await thumbnail(staged.tmp, info).catch(() => null) : null;
    await placeBlob(this.blobs, staged);
    // Held until the row commit settles: a delete of equal bytes meanwhile leaves them alone.
    const held = [staged.hash];
    try {
      const thumb = th ? await placeBuffer(this.blobs, th.data) : null;
      if (thumb) held.push(thumb.hash);
      // The new names on disk before the row names them; files pulled at the same time (a
      // keep-offline job) share the directory syncs.
      await this.blobs.dirs.flush();
      return this.fill(file, staged, contentType, info, th, thumb);
    } finally {
      // Removed only if nothing references them now: this commit failed, or the row was deleted
      // while the bytes arrived (that delete left them to us).
      this.blobs.letGo(held);
    }
  }

  /** The row commit of keep(). */
  private fill(
    file: FileRow,
    staged: Staged,
    contentType: string | null,
    info: Awaited<ReturnType<typeof probeImage>>,
    th: Awaited<ReturnType<typeof thumbnail>> | null,
    thumb: { hash: string; size: number } | null,
  ): FileRow {
    const declared = contentType && !/^application\/(octet-stream|json)/.test(contentType) ? contentType.split(';')[0]! : undefined;
    const mime = info?.mime ?? getMimeType(file.original_name) ?? declared ?? 'application/octet-stream';
    const rec = this.d.store.byRid(file.record_rid)!;
    const top = this.d.store.topOf(rec);
    // Refetchable (no WAL fsync of its own): a power cut that loses this row loses no bytes
    // and no edit; the file reads as not here and is fetched again (its blob, already stored
    // under its hash, is kept). The blob itself was flushed before this commit.
    refetchableTransaction(this.d.ctx.db, () => {
      this.files.setContent(file.rid, {
        hash: staged.hash,
        size: staged.size,
        mime,
        width: info?.width ?? null,
        height: info?.height ?? null,
      });
      if (th && thumb) {
        for (const der of this.files.derivatives(file.rid)) {
          if (!der.content_hash)
            this.files.setContent(der.rid, { hash: thumb.hash, size: thumb.size, mime: th.mime, width: th.width, height: th.height });
        }
      }
      // Not an edit (nothing to push, nothing in the history): only the cached renders change.
      this.d.ctx.renders.dropTop(top.uuid);
    });
    this.d.ctx.events.emit('records', { datasetUuid: this.d.datatypeOf(top).uuid, recordUuids: [top.uuid] });
    return this.files.byRid(file.rid)!;
  }

  /** Files of a dataset (children included) whose bytes are not here yet. */
  missing(dataset: string): FileRow[] {
    const dt = this.d.schema().datatypesByUuid.get(dataset);
    return dt ? this.files.missing(this.d.schema().subtreeIds(dt)) : [];
  }

  /**
   * Downloads every missing file of a dataset (a keep-offline job) for `user`, a super-user read
   * again before each file (actingUser.ts): demoted meanwhile, no further download starts and
   * the job fails saying so; those in flight finish (any viewer's open would fetch them too). A
   * file the server refuses is counted and skipped, so one bad file does not hold up the rest;
   * the job's result lists them.
   */
  async downloadAll(
    dataset: string,
    user: User,
    r: JobReporter,
  ): Promise<{ downloaded: number; failed: { file_uuid: string; error: string }[] }> {
    const todo = this.missing(dataset);
    r.progress(0, todo.length);
    let done = 0;
    let downloaded = 0;
    const failed: { file_uuid: string; error: string }[] = [];
    let next = 0;
    let lost: RightLost | null = null;
    const worker = async () => {
      while (!lost && next < todo.length && !r.cancelled()) {
        try {
          user = superUserNow(this.d, user);
        } catch (e) {
          if (!(e instanceof RightLost)) throw e;
          lost = e;
          break;
        }
        const f = todo[next++]!;
        try {
          const fresh = this.files.byRid(f.rid);
          if (fresh && !fresh.content_hash) {
            await this.ensure(fresh);
            downloaded++;
          }
        } catch (e) {
          failed.push({ file_uuid: f.uuid, error: (e as Error).message });
        }
        r.progress(++done);
      }
    };
    await Promise.all(Array.from({ length: Math.min(OFFLINE_CONCURRENCY, todo.length) }, worker));
    if (lost) throw stoppedFor(lost, `${downloaded} of ${todo.length} files were downloaded`);
    r.progress(done, todo.length);
    return { downloaded, failed };
  }
}
