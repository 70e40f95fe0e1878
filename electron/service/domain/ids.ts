import { randomBytes } from 'node:crypto';

// Bulk paths (CSV and record imports) make a uuid per row: one randomBytes call per uuid cost
// them ~4 % of their CPU, so the random bytes come from a pool refilled a few KB at a time.
const UUID_BYTES = 14;
const POOL_UUIDS = 512;
let pool: Buffer = Buffer.alloc(0);
let at = 0;

/** New uuids look like the real server's: 28 lowercase hex characters. */
export function newUuid(): string {
  if (at >= pool.length) {
    pool = randomBytes(UUID_BYTES * POOL_UUIDS);
    at = 0;
  }
  at += UUID_BYTES;
  return pool.toString('hex', at - UUID_BYTES, at);
}
