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
}

export const DEFAULT_CONFIG: ServiceConfig = {
  tokenTtlSeconds: 360_000, // the real server's dist config: 100 hours
  maxBodyBytes: 10 * 1024 * 1024,
  maxUploadBytes: 2 * 1024 * 1024 * 1024,
};

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
}

export function createCtx(db: Db, dataDir: string, config: ServiceConfig, clock: () => Date = () => new Date()): Ctx {
  const ctx = { db, dataDir, config, clock, schema: new SchemaCache(db), events: new EventBus() } as Ctx;
  ctx.renders = new RenderCache(ctx);
  return ctx;
}

export const nowStamp = (ctx: Ctx) => formatTimestamp(ctx.clock());
