import type { FieldEntry } from '../../../shared/schemas/record';
import type { TemplateField } from '../../../shared/schemas/template';

export interface FieldProps {
  /** The top-level record whose cache entry holds this field. */
  top: string;
  /** The record (top-level or child) the field belongs to. */
  record: string;
  dataset: string;
  field: TemplateField;
  entry: FieldEntry | undefined;
  /** id of the element that names the field (aria-labelledby). */
  labelId: string;
}
