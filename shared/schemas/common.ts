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

/**
 * A guarded write's 409 (`expected_value`, `?expected=`): the field no longer holds what the
 * caller expected. `holds` is what it holds now, as stored: a value (null = empty) or the selected
 * option/tag uuids. Clients tell this refusal apart by `reason`, never by the message's wording.
 */
export const ChangedSince = z.object({
  reason: z.literal('changed_since'),
  holds: z.union([z.string(), z.null(), z.array(z.string())]),
});
export type ChangedSince = z.infer<typeof ChangedSince>;
export const ChangedSinceBody = z.object({
  error: z.object({ code: z.literal(409), message: z.string(), ...ChangedSince.shape }),
});

export const TokenRequest = z.object({ username: z.string(), password: z.string() });
export const TokenResponse = z.object({ token: z.string() });
