import { z } from 'zod';
import { Int } from './common.js';

export const RecordMetadata = z.object({
  _create_date: z.string(),
  /** Reads and saves. */
  _update_date: z.string().optional(),
  /** Create, job and public-status responses name the key this way (seed contract). */
  _updated_date: z.string().optional(),
  _create_auth: z.string(),
  _public_date: z.string(),
});

export const FieldMetadata = z.object({
  _public_date: z.string(),
  _create_date: z.string().optional(),
  _update_date: z.string().optional(),
  _create_auth: z.string().optional(),
});

export const OptionEntry = z.object({
  id: Int,
  template_radio_option_uuid: z.string(),
  name: z.string(),
  user_created: z.literal('1').optional(),
  option_created: z.string().optional(),
  option_selected: z.string().optional(),
  selected: z.literal(1),
});

export const TagEntry = z.object({
  id: Int,
  template_tag_uuid: z.string(),
  parent_template_tag_uuid: z.string().optional(),
  name: z.string(),
  user_created: z.literal('1').optional(),
  tag_created: z.string().optional(),
  tag_selected: z.string().optional(),
  selected: z.literal(1),
});

export const FileMetadata = z.object({
  _external_id: z.string().optional(),
  _create_date: z.string().optional(),
  _create_auth: z.string().optional(),
  _public_date: z.string().optional(),
  _display_order: z.string().optional(),
  _quality: z.string().optional(),
});

export const FileEntry = z.object({
  id: Int,
  parent_image_id: Int.optional(),
  file_uuid: z.string(),
  file_size: z.string().optional(),
  href: z.string(),
  _file_metadata: FileMetadata.optional(),
  original_name: z.string(),
  caption: z.string().optional(),
  width: z.string().optional(),
  height: z.string().optional(),
  /** Local extension: false while an imported file's bytes are not in the local store. */
  content_local: z.boolean().optional(),
});

export const FieldEntry = z.object({
  field_name: z.string(),
  field_uuid: z.string(),
  template_field_uuid: z.string().nullable(),
  id: Int,
  _field_metadata: FieldMetadata.optional(),
  value: z.union([z.string(), z.number(), z.null()]).optional(),
  selected: z.union([z.literal(0), z.literal(1)]).optional(),
  values: z.array(OptionEntry).optional(),
  tags: z.array(TagEntry).optional(),
  files: z.array(FileEntry).optional(),
});

export const OdrRecord = z.object({
  database_uuid: z.string(),
  internal_id: Int,
  /** A string on reads and saves; the id as an integer in create, job and public-status responses. */
  record_name: z.union([z.string(), Int]),
  record_uuid: z.string(),
  template_uuid: z.string(),
  metadata_for_uuid: z.string(),
  _record_metadata: RecordMetadata,
  fields: z.array(FieldEntry),
  get records(): z.ZodArray<typeof OdrRecord> {
    return z.array(OdrRecord);
  },
});

export type RecordMetadata = z.infer<typeof RecordMetadata>;
export type FieldMetadata = z.infer<typeof FieldMetadata>;
export type OptionEntry = z.infer<typeof OptionEntry>;
export type TagEntry = z.infer<typeof TagEntry>;
export type FileEntry = z.infer<typeof FileEntry>;
export type FieldEntry = z.infer<typeof FieldEntry>;
export type OdrRecord = z.infer<typeof OdrRecord>;

export const RecordList = z.object({ count: Int, records: z.array(OdrRecord) });
export type RecordList = z.infer<typeof RecordList>;

export const DeleteResult = z.object({ deleted: z.array(z.string()), count: Int });
export type DeleteResult = z.infer<typeof DeleteResult>;

export const Quota = z.object({ total_bytes: z.string() });
export type Quota = z.infer<typeof Quota>;
