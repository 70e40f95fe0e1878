// Core ODR model: users, datatypes (templates/datasets) with fields, options and tags; records
// as entity–attribute–value rows; the change log every mutation appends to.
export default `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  first_name TEXT NOT NULL DEFAULT '',
  last_name TEXT NOT NULL DEFAULT '',
  password_hash TEXT NOT NULL,
  is_super INTEGER NOT NULL DEFAULT 0,
  api_token_hash TEXT UNIQUE,
  created_at TEXT NOT NULL
);

CREATE TABLE datatypes (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  parent_id INTEGER REFERENCES datatypes(id) ON DELETE CASCADE,
  is_master INTEGER NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  description TEXT,
  master_uuid TEXT NOT NULL DEFAULT '',
  metadata_for_uuid TEXT NOT NULL DEFAULT '',
  search_slug TEXT,
  render_plugins TEXT NOT NULL DEFAULT '[]',
  name_field_id INTEGER,
  new_records_public INTEGER NOT NULL DEFAULT 0,
  display_order INTEGER NOT NULL DEFAULT 0,
  owner_id INTEGER REFERENCES users(id),
  create_date TEXT NOT NULL,
  create_auth TEXT NOT NULL,
  public_date TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  master_published_version TEXT NOT NULL DEFAULT '0',
  master_revision TEXT NOT NULL DEFAULT '0',
  tracking_master_version TEXT NOT NULL DEFAULT '0'
);
CREATE INDEX datatypes_parent ON datatypes(parent_id);

CREATE TABLE datafields (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  datatype_id INTEGER NOT NULL REFERENCES datatypes(id) ON DELETE CASCADE,
  template_field_uuid TEXT,
  name TEXT NOT NULL,
  description TEXT,
  fieldtype TEXT NOT NULL,
  is_unique INTEGER NOT NULL DEFAULT 0,
  render_plugins TEXT NOT NULL DEFAULT '[]',
  display_order INTEGER NOT NULL DEFAULT 0,
  create_date TEXT NOT NULL,
  create_auth TEXT NOT NULL,
  public_date TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  master_published_version TEXT NOT NULL DEFAULT '0',
  master_revision TEXT NOT NULL DEFAULT '0',
  tracking_master_version TEXT NOT NULL DEFAULT '0'
);
CREATE INDEX datafields_datatype ON datafields(datatype_id);

-- Option and tag uuids are the template's: clones of a template share them, so they are
-- unique per field, not globally.
CREATE TABLE radio_options (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL,
  datafield_id INTEGER NOT NULL REFERENCES datafields(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  display_order INTEGER NOT NULL DEFAULT 0,
  is_default INTEGER NOT NULL DEFAULT 0,
  user_created INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (datafield_id, uuid)
);

CREATE TABLE tags (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL,
  datafield_id INTEGER NOT NULL REFERENCES datafields(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES tags(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  display_order INTEGER NOT NULL DEFAULT 0,
  user_created INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (datafield_id, uuid)
);
CREATE INDEX tags_parent ON tags(parent_id);

-- rid keeps insertion order (ODR exports order children and images that way); internal_id
-- is the interface id, kept from imports.
CREATE TABLE records (
  rid INTEGER PRIMARY KEY,
  internal_id INTEGER NOT NULL UNIQUE,
  uuid TEXT NOT NULL UNIQUE,
  datatype_id INTEGER NOT NULL REFERENCES datatypes(id) ON DELETE CASCADE,
  parent_rid INTEGER REFERENCES records(rid) ON DELETE CASCADE,
  top_rid INTEGER NOT NULL,
  created_by INTEGER REFERENCES users(id),
  create_date TEXT NOT NULL,
  update_date TEXT NOT NULL,
  create_auth TEXT NOT NULL,
  public_date TEXT NOT NULL
);
CREATE INDEX records_top_level ON records(datatype_id, rid) WHERE parent_rid IS NULL;
CREATE INDEX records_by_top ON records(top_rid);
CREATE INDEX records_by_parent ON records(parent_rid);

-- One row per (record, field) once the field is used on the record: the value of scalar kinds,
-- and the field instance's metadata for every kind.
CREATE TABLE field_values (
  record_rid INTEGER NOT NULL REFERENCES records(rid) ON DELETE CASCADE,
  datafield_id INTEGER NOT NULL REFERENCES datafields(id) ON DELETE CASCADE,
  value,
  create_date TEXT NOT NULL,
  update_date TEXT NOT NULL,
  create_auth TEXT NOT NULL,
  PRIMARY KEY (record_rid, datafield_id)
) WITHOUT ROWID;

CREATE TABLE option_selections (
  record_rid INTEGER NOT NULL REFERENCES records(rid) ON DELETE CASCADE,
  option_id INTEGER NOT NULL REFERENCES radio_options(id) ON DELETE CASCADE,
  datafield_id INTEGER NOT NULL,
  selected_at TEXT NOT NULL,
  PRIMARY KEY (record_rid, option_id)
) WITHOUT ROWID;
CREATE INDEX option_selections_by_option ON option_selections(option_id);

CREATE TABLE tag_selections (
  record_rid INTEGER NOT NULL REFERENCES records(rid) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  datafield_id INTEGER NOT NULL,
  selected_at TEXT NOT NULL,
  PRIMARY KEY (record_rid, tag_id)
) WITHOUT ROWID;
CREATE INDEX tag_selections_by_tag ON tag_selections(tag_id);

-- content_hash NULL: the bytes are not in the local store (imported metadata only).
CREATE TABLE files (
  rid INTEGER PRIMARY KEY,
  internal_id INTEGER NOT NULL UNIQUE,
  uuid TEXT NOT NULL UNIQUE,
  record_rid INTEGER NOT NULL REFERENCES records(rid) ON DELETE CASCADE,
  datafield_id INTEGER NOT NULL REFERENCES datafields(id) ON DELETE CASCADE,
  is_image INTEGER NOT NULL DEFAULT 0,
  parent_rid INTEGER REFERENCES files(rid) ON DELETE CASCADE,
  original_name TEXT NOT NULL,
  content_hash TEXT,
  file_size INTEGER,
  mime TEXT,
  width INTEGER,
  height INTEGER,
  caption TEXT NOT NULL DEFAULT '',
  external_id TEXT NOT NULL DEFAULT '',
  source_href TEXT,
  display_order INTEGER NOT NULL DEFAULT 0,
  quality INTEGER NOT NULL DEFAULT 0,
  created_by INTEGER REFERENCES users(id),
  create_date TEXT NOT NULL,
  create_auth TEXT NOT NULL,
  public_date TEXT NOT NULL
);
CREATE INDEX files_by_record ON files(record_rid);
CREATE INDEX files_by_parent ON files(parent_rid);
CREATE INDEX files_by_hash ON files(content_hash);

-- Append-only (rows are never deleted), so rowid order is the order of changes without
-- AUTOINCREMENT's extra page write per commit.
CREATE TABLE change_log (
  seq INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  user_id INTEGER,
  op TEXT NOT NULL,
  dataset_uuid TEXT,
  record_uuid TEXT,
  top_record_uuid TEXT,
  field_uuid TEXT,
  item_uuid TEXT,
  old TEXT,
  new TEXT,
  origin TEXT NOT NULL DEFAULT 'local'
);
`;
