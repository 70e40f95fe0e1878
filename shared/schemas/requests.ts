import { z } from 'zod';

// Request bodies, validated at the service's edge. Objects are loose: real clients echo back
// whole records (ids, metadata, names) and the service ignores what it does not read.

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const Flag = z.union([z.literal(0), z.literal(1), z.literal('0'), z.literal('1'), z.boolean()]);

export const ValueBody = z.looseObject({
  value: z.union([Scalar, z.null()]),
  /**
   * Write only if the field holds this now (`""` or null: empty; compared as stored, so "1.50"
   * matches 1.5); otherwise 409 and nothing changes. An undo sends what its step set, so a value
   * changed since (a sync, a script, another window) is not overwritten.
   */
  expected_value: z.union([Scalar, z.null()]).optional(),
  /**
   * Act as this user. null or a number is taken as absent (falling back to `?user_email=`), as
   * before the body was validated: published clients send None/0 here and must keep working.
   */
  user_email: z.union([z.string(), z.number(), z.null()]).optional(),
});
export type ValueBody = z.infer<typeof ValueBody>;

/** PUT /record/{r}/{f}/{option}/{state}: `expected` is the selection the field must hold now. */
export const OptionQuery = z.object({ expected: z.string().optional(), user_email: z.string().optional() });

export const SaveOption = z.looseObject({ template_radio_option_uuid: z.string(), selected: Flag.optional() });
export const SaveTag = z.looseObject({
  template_tag_uuid: z.string(),
  selected: Flag.optional(),
  parent_tag_uuid: z.string().optional(),
});
export const SaveFile = z.looseObject({
  file_uuid: z.string(),
  created: z.string().optional(),
  public_date: z.string().optional(),
  quality: z.union([z.number().int(), z.string()]).optional(),
  display_order: z.union([z.number().int(), z.string()]).optional(),
  caption: z.string().optional(),
});
export const SaveField = z.looseObject({
  field_uuid: z.string().optional(),
  template_field_uuid: z.string().nullable().optional(),
  value: z.union([Scalar, z.null()]).optional(),
  selected: z.union([Flag, z.null()]).optional(),
  values: z.array(SaveOption).optional(),
  tags: z.array(SaveTag).optional(),
  files: z.array(SaveFile).optional(),
  created: z.string().optional(),
});
export const SaveRecord = z.looseObject({
  record_uuid: z.string(),
  database_uuid: z.string().optional(),
  created: z.string().optional(),
  public_date: z.string().optional(),
  fields: z.array(SaveField).optional(),
  get records(): z.ZodOptional<z.ZodArray<typeof SaveRecord>> {
    return z.array(SaveRecord).optional();
  },
});
export type SaveOption = z.infer<typeof SaveOption>;
export type SaveTag = z.infer<typeof SaveTag>;
export type SaveFile = z.infer<typeof SaveFile>;
export type SaveField = z.infer<typeof SaveField>;
export type SaveRecord = z.infer<typeof SaveRecord>;

/** The save endpoint also takes `{user_email, dataset: <record>}` (act-as, super-user only). */
export const SaveWrapper = z.looseObject({ user_email: z.string(), dataset: SaveRecord });

export const DeleteRecordsBody = z.looseObject({
  record_uuids: z.array(z.string()).optional(),
  user_email: z.string().optional(),
});

/** Form fields of POST /dataset/record/public. */
export const PublicForm = z.object({
  user_email: z.string().min(1),
  dataset_uuid: z.string().min(1),
  record_uuid: z.string().min(1),
  public_date: z.string().optional(),
  /** Set the date only if the record's public date is this now (odr-desktop); 409 otherwise. */
  expected_public_date: z.string().optional(),
});

/** Form fields of POST /dataset/publish. */
export const PublishForm = z.object({
  dataset_uuid: z.string().min(1),
  record_uuid: z.string().optional(),
  public_date: z.string().optional(),
  user_email: z.string().optional(),
});

/** Form fields of POST /dataset/{uuid}/record. */
export const CreateRecordForm = z.object({
  user_email: z.string().optional(),
  public_date: z.string().optional(),
  created: z.string().optional(),
});

/** Form fields of POST /dataset (create a dataset from a template). */
export const CreateDatasetForm = z.object({
  template_uuid: z.string().min(1),
  user_email: z.string().optional(),
  dataset_name: z.string().optional(),
});
