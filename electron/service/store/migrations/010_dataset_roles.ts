// Per-dataset roles (POST /user/permissions, the Users screen): one role per user and top-level
// dataset, as the real server keeps a user in at most one of a datatype's default groups.
// meta.users_rev moves in the same transaction as any change to users or roles (triggers, so
// cascades from a deleted dataset or user count too): every process's user cache compares it
// before trusting what it holds, so a revoked role or a demoted super-user takes effect at once.
export default `
CREATE TABLE dataset_roles (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  datatype_id INTEGER NOT NULL REFERENCES datatypes(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('view_only', 'view', 'edit', 'admin')),
  granted_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  granted_at TEXT NOT NULL,
  PRIMARY KEY (user_id, datatype_id)
) WITHOUT ROWID;
CREATE INDEX dataset_roles_by_datatype ON dataset_roles(datatype_id);

INSERT INTO meta (key, value) VALUES ('users_rev', '1') ON CONFLICT(key) DO NOTHING;
CREATE TRIGGER users_rev_role_ins AFTER INSERT ON dataset_roles BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'users_rev'; END;
CREATE TRIGGER users_rev_role_upd AFTER UPDATE ON dataset_roles BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'users_rev'; END;
CREATE TRIGGER users_rev_role_del AFTER DELETE ON dataset_roles BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'users_rev'; END;
CREATE TRIGGER users_rev_user_ins AFTER INSERT ON users BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'users_rev'; END;
CREATE TRIGGER users_rev_user_upd AFTER UPDATE OF email, first_name, last_name, is_super ON users BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'users_rev'; END;
CREATE TRIGGER users_rev_user_del AFTER DELETE ON users BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'users_rev'; END;
`;
