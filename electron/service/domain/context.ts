import { z } from 'zod';
import type { Db } from '../store/db.js';
import { formatTimestamp } from '../../../shared/dates.js';
import { SchemaCache } from './schemaCache.js';
import { EventBus } from './events.js';
import { RenderCache } from './renderCache.js';

export interface ServiceConfig {
  /** Lifetime of JWTs from POST /token, seconds. */
  tokenTtlSeconds: number;
  /** Largest JSON or form body accepted, bytes. */
  maxBodyBytes: number;
  /** Largest file accepted by POST /file, bytes. */
  maxUploadBytes: number;
  /**
   * Where the record table's capped count stops (its total is then a lower bound). Two common
   * words match half of 1M records, and counting them all cost 133 ms of a 212 ms first page.
   */
  countCap: number;
  /**
   * Most top-level records rendered from one tree read: a page's values come back as one JSON
   * text, and bounding a read to ~1,000 trees' values keeps it under SQLite's and V8's string
   * limits for records of ordinary size whatever the page's limit (a count of trees, not of bytes).
   */
  renderChunkTops: number;
  /**
   * Entries per step of an id list (`GET /search/database/{uuid}/records/0`): a longer list is
   * streamed a step at a time, never held whole (about 110 bytes an entry as JSON).
   */
  idListChunk: number;
  /**
   * Bound of one event-stream subscriber's queue (domain/events.ts EventQueue): past this many
   * events, or this many characters of their JSON, a window that reads too slowly gets one
   * `resync` in place of what it missed. A setting so a test can overflow it with real events.
   */
  eventQueueEvents: number;
  eventQueueChars: number;
  /**
   * Ceiling of live mode's retry backoff (sync/live.ts), ms: an unreachable remote or a pause for
   * want of a super-user is tried again within this. A setting so a test can hold a pause's next
   * try beyond its own timeout, and so assert what happens meanwhile without racing the timer.
   */
  liveMaxBackoffMs: number;
}

export const DEFAULT_CONFIG: ServiceConfig = {
  tokenTtlSeconds: 360_000, // the real server's dist config: 100 hours
  maxBodyBytes: 10 * 1024 * 1024,
  maxUploadBytes: 2 * 1024 * 1024 * 1024,
  countCap: 10_000,
  renderChunkTops: 1000,
  idListChunk: 5000,
  eventQueueEvents: 5000,
  eventQueueChars: 2 * 1024 * 1024,
  liveMaxBackoffMs: 30_000, // "back again" is noticed within 30 s
};

const count = z.number().int().positive();
const ConfigSchema = z.object({
  tokenTtlSeconds: count,
  maxBodyBytes: count,
  maxUploadBytes: count,
  countCap: count,
  renderChunkTops: count,
  idListChunk: count,
  eventQueueEvents: count,
  eventQueueChars: count,
  liveMaxBackoffMs: count,
});

/** The defaults with `over` applied; a setting that is not a positive integer (NaN from a bad env value) throws, naming it. */
export function serviceConfig(over: Partial<ServiceConfig> = {}): ServiceConfig {
  const r = ConfigSchema.safeParse({ ...DEFAULT_CONFIG, ...over });
  if (!r.success) throw new Error(`invalid service config: ${z.prettifyError(r.error)}`);
  return r.data;
}

/** Everything the domain needs, passed explicitly (no module state), so tests can host several. */
export interface Ctx {
  db: Db;
  dataDir: string;
  config: ServiceConfig;
  schema: SchemaCache;
  events: EventBus;
  /** Injectable for scheduled-publication tests; everything reads time through it. */
  clock: () => Date;
  /** Rendered record JSON; the change log drops what each mutation touches. */
  renders: RenderCache;
  /**
   * Record lists still streaming (api/routes/recordStream.ts): close() cuts them before the
   * database closes, so a slow client sees a broken answer, not a read of a closed database.
   */
  streams: Set<{ cut(reason: Error): void }>;
}

export function createCtx(db: Db, dataDir: string, config: ServiceConfig, clock: () => Date = () => new Date()): Ctx {
  const ctx = { db, dataDir, config, clock, schema: new SchemaCache(db), events: new EventBus(), streams: new Set() } as Ctx;
  ctx.renders = new RenderCache(ctx);
  return ctx;
}

// Every request reads the time as a stamp; formatting it once per second spares the hot path.
let lastSecond = NaN;
let lastStamp = '';
export function nowStamp(ctx: Ctx): string {
  const second = Math.floor(ctx.clock().getTime() / 1000);
  if (second !== lastSecond) {
    lastStamp = formatTimestamp(new Date(second * 1000));
    lastSecond = second;
  }
  return lastStamp;
}
