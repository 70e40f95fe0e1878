import { randomBytes } from 'node:crypto';

/** New uuids look like the real server's: 28 lowercase hex characters. */
export const newUuid = (): string => randomBytes(14).toString('hex');
