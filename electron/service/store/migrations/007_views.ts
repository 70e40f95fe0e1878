// The record list's per-user view state, kept by the service so it survives restarts and is the
// same from any window: saved searches and column layouts per dataset (by uuid: a dataset
// restored from the trash finds them again).
export default `
CREATE TABLE saved_searches (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  dataset_uuid TEXT NOT NULL,
  name TEXT NOT NULL,
  view TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX saved_searches_by_dataset ON saved_searches(user_id, dataset_uuid);

CREATE TABLE column_layouts (
  user_id INTEGER NOT NULL REFERENCES users(id),
  dataset_uuid TEXT NOT NULL,
  layout TEXT NOT NULL,
  updated TEXT NOT NULL,
  PRIMARY KEY (user_id, dataset_uuid)
) WITHOUT ROWID;
`;
