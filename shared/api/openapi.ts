import { z } from 'zod';
import * as schemas from '../schemas/index.js';
import { ErrorBody } from '../schemas/common.js';
import { ROUTES, type Auth, type RouteDoc } from './routes.js';

// The OpenAPI 3.1 document of the whole HTTP surface, generated from the route table and the
// zod schemas (zod 4's JSON Schema output, draft 2020-12 as OpenAPI 3.1 uses). Exported shared
// schemas become named components; nothing is written twice.

type Json = Record<string, unknown>;

const SECURITY: Record<Auth, Json[]> = {
  bearer: [{ bearer: [] }],
  job: [{ xAuth: [] }, { bearer: [] }],
  query: [{ bearer: [] }, { accessToken: [] }],
  none: [],
};

const KIND_MEDIA = {
  // The stored file's own type (image/png, text/csv, …).
  binary: ['*/*', { type: 'string', contentMediaType: 'application/octet-stream' }],
  html: ['text/html', { type: 'string' }],
  javascript: ['text/javascript', { type: 'string' }],
  'event-stream': ['text/event-stream', { type: 'string' }],
  text: ['text/plain', { type: 'string' }],
  openapi: ['application/json', { type: 'object' }],
} as const;

/** `get /api/v4/dataset/{uuid}/search/{limit}/{offset}` → `getDatasetUuidSearchLimitOffset`. */
export function operationId(r: Pick<RouteDoc, 'method' | 'path'>): string {
  const words = r.path
    .replace(/^\/api\/v4/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return r.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);

export function openApiDocument(opts: { serverUrl?: string; version?: string } = {}): Json {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<z.ZodType, string>();
  for (const [name, value] of Object.entries(schemas)) {
    if (value instanceof z.ZodType && !ids.has(value)) {
      ids.set(value, name);
      registry.add(value, { id: name });
    }
  }
  const ref = (schema: z.ZodType, fallback: string): Json => {
    let id = ids.get(schema);
    if (!id) {
      id = fallback;
      ids.set(schema, id);
      registry.add(schema, { id });
    }
    return { $ref: `#/components/schemas/${id}` };
  };
  /** Inline JSON Schema of a small schema (a parameter). */
  const inline = (schema: z.ZodType): Json => {
    const { $schema: _s, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Json;
    return rest;
  };

  const paths: Record<string, Record<string, Json>> = {};
  const errorRef = ref(ErrorBody, 'ErrorBody');
  for (const r of ROUTES) {
    const id = operationId(r);
    const parameters: Json[] = [...r.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: r.params?.[name!] ? inline(r.params[name!]!) : { type: 'string' },
    }));
    if (r.query) {
      for (const [name, schema] of Object.entries(r.query.shape)) {
        parameters.push({
          name,
          in: 'query',
          required: !(schema as z.ZodType).safeParse(undefined).success,
          schema: inline(schema as z.ZodType),
        });
      }
    }
    const media = r.ok.kind && r.ok.kind !== 'json' ? KIND_MEDIA[r.ok.kind] : null;
    const okContent = r.ok.schema
      ? { 'application/json': { schema: ref(r.ok.schema, `${capital(id)}Response`) } }
      : media
        ? { [media[0]]: { schema: media[1] } }
        : undefined;
    const responses: Json = {
      [r.ok.status]:
        r.ok.status === 302
          ? { description: r.ok.description, headers: { Location: { schema: { type: 'string' } } } }
          : { description: r.ok.description, content: okContent },
      '4XX': {
        description: 'Bad input, missing or wrong credentials, no permission, unknown uuid',
        content: { 'application/json': { schema: errorRef } },
      },
      '5XX': { description: 'Unexpected failure', content: { 'application/json': { schema: errorRef } } },
    };
    const op: Json = {
      operationId: id,
      summary: r.summary,
      tags: [r.tag],
      ...(r.description ? { description: r.description } : {}),
      ...(parameters.length ? { parameters } : {}),
      security: SECURITY[r.auth],
      responses,
    };
    if (r.body) {
      const schema = ref(r.body.schema, `${capital(id)}Body`);
      op.requestBody = { required: r.body.required, content: Object.fromEntries(r.body.media.map((m) => [m, { schema }])) };
    }
    (paths[r.path] ??= {})[r.method] = op;
  }

  const converted = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' }) as {
    schemas: Record<string, Json>;
  };
  const components = Object.fromEntries(
    Object.entries(converted.schemas).map(([k, v]) => {
      const { $schema: _s, $id: _i, ...rest } = v;
      return [k, rest];
    }),
  );

  return {
    openapi: '3.1.0',
    info: {
      title: 'odr-desktop: ODR API v4 and local routes',
      version: opts.version ?? '0.1.0',
      description:
        'The ODR v4 interface as odr-desktop answers it (a drop-in for a lab\'s ODR server: change only the base URL), plus odr-desktop\'s own /local routes. Every failure answers `{"error": {"code", "message"}}` with its HTTP status. A `.json` suffix on the last path segment is accepted.',
    },
    ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl }] } : {}),
    tags: [...new Set(ROUTES.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'From POST /api/v4/token' },
        xAuth: { type: 'apiKey', in: 'header', name: 'x-auth', description: 'The job API token' },
        accessToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The JWT, for <img> and EventSource' },
      },
    },
  };
}
