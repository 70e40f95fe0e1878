// Row shapes of the tables the domain reads directly.

export interface RecordRow {
  rid: number;
  internal_id: number;
  uuid: string;
  datatype_id: number;
  parent_rid: number | null;
  top_rid: number;
  created_by: number | null;
  create_date: string;
  update_date: string;
  create_auth: string;
  public_date: string;
}

export const RECORD_COLUMNS =
  'rid, internal_id, uuid, datatype_id, parent_rid, top_rid, created_by, create_date, update_date, create_auth, public_date';

/**
 * A field instance's columns as ValueRow, read with its record as `r`. An instance whose author is
 * its record's is stored with create_auth '' (imports, where nearly all are: 19 bytes a value, 9 %
 * of the database); this puts the record's back.
 */
export const valueColumns = (v: string, r: string) =>
  `${v}.record_rid, ${v}.datafield_id, ${v}.value, ${v}.create_date, ${v}.update_date, ` +
  `CASE ${v}.create_auth WHEN '' THEN ${r}.create_auth ELSE ${v}.create_auth END AS create_auth`;

export interface ValueRow {
  record_rid: number;
  datafield_id: number;
  value: string | number | null;
  create_date: string;
  update_date: string;
  create_auth: string;
}

export interface SelectionRow {
  record_rid: number;
  datafield_id: number;
  item_id: number;
  selected_at: string;
}

export interface FileRow {
  rid: number;
  internal_id: number;
  uuid: string;
  record_rid: number;
  datafield_id: number;
  is_image: number;
  parent_rid: number | null;
  original_name: string;
  content_hash: string | null;
  file_size: number | null;
  mime: string | null;
  width: number | null;
  height: number | null;
  caption: string;
  external_id: string;
  source_href: string | null;
  display_order: number;
  quality: number;
  created_by: number | null;
  create_date: string;
  create_auth: string;
  public_date: string;
}
