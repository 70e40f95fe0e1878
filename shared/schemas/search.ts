import { z } from 'zod';
import { Int } from './common.js';
import { OdrRecord } from './record.js';
import { RadioOption, RecordIdList, TemplateField, TemplateTag } from './template.js';

// The search and field-statistics routes of the real server (data-publisher's FacadeController
// and APIController), request and answer shapes.

const SearchValue = z.union([z.string(), z.number(), z.boolean()]);

/** POST /dataset/{uuid}/search/{limit}/{offset}; an empty list matches every top-level record. */
export const DatasetSearchBody = z.object({
  fields: z.array(
    z.looseObject({
      field_uuid: z.string().min(1),
      value: z.union([SearchValue, z.array(SearchValue)]),
    }),
  ),
});
export type DatasetSearchBody = z.infer<typeof DatasetSearchBody>;

/** A template search key, decoded (base64 JSON in GET /search/{key} and POST /search). */
export const TemplateSearchKey = z.looseObject({
  template_uuid: z.string(),
  general: z.string().optional(),
  fields: z
    .array(
      z.looseObject({
        template_field_uuid: z.string(),
        value: z.string().optional(),
        selected_options: z.array(z.object({ template_radio_option_uuid: z.string() })).optional(),
        selected_tags: z.array(z.object({ template_tag_uuid: z.string() })).optional(),
        before: z.string().optional(),
        after: z.string().optional(),
        filename: z.string().optional(),
        has_file: z.union([z.boolean(), Int, z.string()]).optional(),
      }),
    )
    .optional(),
  sort_by: z.array(z.object({ dir: z.enum(['asc', 'desc']), template_field_uuid: z.string() })).optional(),
});

/** POST /search/{limit}/{offset} and /legacysearch: the base64 key in a form or JSON field. */
export const TemplateSearchPost = z.object({ search_key: z.string().min(1) });

export const SearchRecords = z.object({ records: z.array(OdrRecord) });
export const CountedSearchRecords = z.object({ count: Int, records: z.array(OdrRecord) });
/** GET /dataset/search/…/{return_as_list}: full records, or id entries when return_as_list=1. */
export const DatasetSearchResult = z.object({
  count: Int,
  records: z.union([z.array(OdrRecord), RecordIdList.shape.records]),
});

/** GET /search/field/stats/…: `{"<option name>": {count, template_radio_option_uuid | template_tag_uuid}}`, most used first. */
export const FieldStats = z.record(
  z.string(),
  z.object({
    count: Int,
    template_radio_option_uuid: z.string().optional(),
    template_tag_uuid: z.string().optional(),
  }),
);
export type FieldStats = z.infer<typeof FieldStats>;

export const StatsRadioOption = RadioOption.extend({ count: Int });
export type StatsRadioOption = z.infer<typeof StatsRadioOption>;
export const StatsTag = TemplateTag.omit({ tags: true }).extend({
  count: Int,
  get tags(): z.ZodOptional<z.ZodArray<typeof StatsTag>> {
    return z.array(StatsTag).optional();
  },
});
export type StatsTag = z.infer<typeof StatsTag>;
/** GET /search/field/statsbydataset/…: the template field with a count on each option or tag. */
export const FieldStatsByDataset = TemplateField.extend({
  radio_options: z.array(StatsRadioOption).optional(),
  tags: z.array(StatsTag).optional(),
});
export type FieldStatsByDataset = z.infer<typeof FieldStatsByDataset>;
