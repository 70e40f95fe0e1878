import { z } from 'zod';
import { TIMESTAMP_RE } from '../dates.js';

/** Real ODR data carries 28-character and legacy 7-character uuids; accept `[a-z0-9]+`. */
export const Uuid = z.string().regex(/^[a-z0-9]+$/, 'must be a lowercase alphanumeric uuid');
export const Timestamp = z.string().regex(TIMESTAMP_RE, 'must be YYYY-MM-DD HH:MM:SS');
export const Int = z.number().int();

export const ErrorBody = z.object({
  error: z.object({ code: Int, message: z.string() }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const TokenRequest = z.object({ username: z.string(), password: z.string() });
export const TokenResponse = z.object({ token: z.string() });
