import { z } from 'zod';
import { Int } from './common.js';

export const TemplateMetadata = z.object({
  _create_date: z.string(),
  _create_auth: z.string(),
  _public_date: z.string(),
  _master_published_version: z.string(),
  _master_revision: z.string(),
  _tracking_master_version: z.string(),
});

/** A plugin instance; options (ODR's renderPluginOptionsMap, name → value) when the export has them. */
export const RenderPlugin = z.object({
  render_plugin: z.string(),
  render_plugin_options: z.record(z.string(), z.string()).optional(),
});
export type RenderPlugin = z.infer<typeof RenderPlugin>;

export const RadioOption = z.object({
  name: z.string(),
  template_radio_option_uuid: z.string(),
  updated_at: z.string(),
});

export const TemplateTag = z.object({
  name: z.string(),
  id: z.string(),
  display_order: z.string(),
  template_tag_uuid: z.string(),
  updated_at: z.string(),
  get tags(): z.ZodOptional<z.ZodArray<typeof TemplateTag>> {
    return z.array(TemplateTag).optional();
  },
});

export const TemplateField = z.object({
  internal_id: Int,
  name: z.string(),
  description: z.string().nullable(),
  fieldtype: z.string(),
  field_uuid: z.string(),
  template_field_uuid: z.string().nullable(),
  updated_at: z.string(),
  render_plugins: z.array(RenderPlugin).optional(),
  is_unique: z.literal(1).optional(),
  _field_metadata: TemplateMetadata,
  radio_options: z.array(RadioOption).optional(),
  tags: z.array(TemplateTag).optional(),
});

export const Template = z.object({
  internal_id: Int,
  name: z.string(),
  description: z.string().nullable(),
  template_uuid: z.string(),
  updated_at: z.string(),
  render_plugins: z.array(RenderPlugin).optional(),
  metadata_for_uuid: z.string(),
  _database_metadata: TemplateMetadata,
  fields: z.array(TemplateField),
  get related_databases(): z.ZodArray<typeof Template> {
    return z.array(Template);
  },
});

/**
 * What the template adapter (shared/legacy.ts normalizeTemplate) produces from any server's
 * export: the canonical template, except that tags from legacy exports may lack `id` and
 * `display_order`. Derived from the schemas above so the two cannot drift.
 */
export const TemplateTagIn = TemplateTag.partial({ id: true, display_order: true }).extend({
  get tags(): z.ZodOptional<z.ZodArray<typeof TemplateTagIn>> {
    return z.array(TemplateTagIn).optional();
  },
});
export const TemplateFieldIn = TemplateField.extend({ tags: z.array(TemplateTagIn).optional() });
export const TemplateIn = Template.extend({
  fields: z.array(TemplateFieldIn),
  get related_databases(): z.ZodArray<typeof TemplateIn> {
    return z.array(TemplateIn);
  },
});
export type TemplateTagIn = z.infer<typeof TemplateTagIn>;
export type TemplateFieldIn = z.infer<typeof TemplateFieldIn>;
export type TemplateIn = z.infer<typeof TemplateIn>;

export type TemplateMetadata = z.infer<typeof TemplateMetadata>;
export type RadioOption = z.infer<typeof RadioOption>;
export type TemplateTag = z.infer<typeof TemplateTag>;
export type TemplateField = z.infer<typeof TemplateField>;
export type Template = z.infer<typeof Template>;

export const DatabaseListEntry = z.object({
  database_id: Int,
  database_name: z.string(),
  search_slug: z.string().nullable(),
  database_description: z.string().nullable(),
  unique_id: z.string(),
  template_id: z.string().nullable(),
});
export const DatabaseList = z.object({ databases: z.array(DatabaseListEntry) });
export type DatabaseListEntry = z.infer<typeof DatabaseListEntry>;
export type DatabaseList = z.infer<typeof DatabaseList>;

/** `GET /search/database/{uuid}/records/...` and the modified-records route (docs/odr-server.md §5.8). */
export const RecordIdList = z.object({
  records: z.array(
    z.object({
      internal_id: Int,
      unique_id: z.string(),
      external_id: z.string(),
      record_name: z.string(),
    }),
  ),
});
export type RecordIdList = z.infer<typeof RecordIdList>;
