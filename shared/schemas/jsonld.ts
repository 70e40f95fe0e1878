import { z } from 'zod';

// GET /jsonld/{uuid}: a dataset as schema.org JSON-LD (https://schema.org/Dataset), the shape
// the real server gives search engines, plus what it lacks: the fields as variables and the
// records' values, each record a part of the dataset.

export const JsonLdValue = z.object({
  '@type': z.literal('PropertyValue'),
  propertyID: z.string(),
  name: z.string(),
  value: z.union([z.string(), z.number(), z.boolean()]),
});
export type JsonLdValue = z.infer<typeof JsonLdValue>;

export const JsonLdRecord = z.object({
  '@type': z.literal('Dataset'),
  '@id': z.string(),
  identifier: z.string(),
  name: z.string(),
  dateCreated: z.string(),
  dateModified: z.string(),
  variableMeasured: z.array(JsonLdValue),
  get hasPart(): z.ZodOptional<z.ZodArray<typeof JsonLdRecord>> {
    return z.array(JsonLdRecord).optional();
  },
});
export type JsonLdRecord = z.infer<typeof JsonLdRecord>;

export const JsonLdDataset = z.object({
  '@context': z.literal('https://schema.org/'),
  '@type': z.literal('Dataset'),
  '@id': z.string(),
  identifier: z.string(),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  sameAs: z.string().optional(),
  version: z.string().optional(),
  isAccessibleForFree: z.boolean().optional(),
  dateCreated: z.string(),
  dateModified: z.string(),
  datePublished: z.string().optional(),
  creator: z.object({ '@list': z.array(z.object({ '@type': z.literal('Person'), name: z.string() })) }),
  keywords: z.array(z.string()),
  license: z.array(z.string()),
  /** The dataset's fields (top-level datatype). */
  variableMeasured: z.array(
    z.object({ '@type': z.literal('PropertyValue'), propertyID: z.string(), name: z.string(), description: z.string().optional() }),
  ),
  /** The readable top-level records of this page (`?limit=`, default 1000, `?offset=`), child records nested. */
  hasPart: z.array(JsonLdRecord),
});
export type JsonLdDataset = z.infer<typeof JsonLdDataset>;

export const JsonLdQuery = z.object({
  limit: z.string().regex(/^\d+$/).optional(),
  offset: z.string().regex(/^\d+$/).optional(),
});
