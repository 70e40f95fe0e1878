import type { Context } from 'hono';
import type { z } from 'zod';
import { badRequest } from '../domain/errors.js';
import { jsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from '../../../shared/jsonDepth.js';
import { zodMessage } from '../../../shared/zodMessage.js';

/** Parses a JSON body; empty or malformed bodies are a 400 naming the problem. */
export async function jsonBody(c: Context, opts: { optional?: boolean } = {}): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') {
    if (opts.optional) return undefined;
    throw badRequest('Request body is empty; a JSON object is required');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`Request body is not valid JSON: ${(e as Error).message}`);
  }
  // Saves and every other body are walked recursively (schemas, record trees): bound them first.
  if (jsonDepth(value) > MAX_JSON_DEPTH) throw badRequest(tooDeepMessage('Request body'));
  return value;
}

export async function parsedJson<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  const body = await jsonBody(c);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('Request body must be a JSON object');
  const r = schema.safeParse(body);
  if (!r.success) throw badRequest(zodMessage(r.error, { input: body }));
  return r.data;
}

/**
 * Form fields of a multipart or urlencoded body as strings (ODR's create and publish routes
 * read forms; a JSON body there is ignored, as on the real server).
 */
export async function formFields(c: Context): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!/multipart\/form-data|application\/x-www-form-urlencoded/i.test(type)) return {};
  let body: Record<string, unknown>;
  try {
    body = await c.req.parseBody();
  } catch (e) {
    throw badRequest(`Form body could not be read: ${(e as Error).message}`);
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** A numeric id from the path (a row id of ours): 400 naming it when it is not one. */
export function idParam(c: Context, name = 'id'): number {
  const raw = c.req.param(name) ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`${name} must be a positive integer, not "${raw}"`);
  return Number(raw);
}
