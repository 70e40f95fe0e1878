import type { DatasetRole } from '../../../shared/schemas/users.js';
import type { Db } from './db.js';

/** A row of `users`. */
export interface UserRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  is_super: number;
  password_hash: string;
  api_token_hash: string | null;
  created_at: string;
}

/** A row of `dataset_roles`: a user's role on one top-level datatype. */
export interface RoleRow {
  user_id: number;
  datatype_id: number;
  role: DatasetRole;
}

function build(db: Db) {
  return {
    byId: db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?'),
    byEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
    all: db.prepare<[], UserRow>('SELECT * FROM users ORDER BY email'),
    count: db.prepare<[], number>('SELECT COUNT(*) FROM users').pluck(),
    firstSuper: db.prepare<[], UserRow>('SELECT * FROM users WHERE is_super = 1 ORDER BY id LIMIT 1'),
    superCount: db.prepare<[], number>('SELECT COUNT(*) FROM users WHERE is_super = 1').pluck(),
    insert: db.prepare<[string, string, string, string, number, string]>(
      'INSERT INTO users (email, first_name, last_name, password_hash, is_super, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setPassword: db.prepare<[string, string]>('UPDATE users SET password_hash = ? WHERE email = ?'),
    setNames: db.prepare<[string, string, number]>('UPDATE users SET first_name = ?, last_name = ? WHERE id = ?'),
    setSuper: db.prepare<[number, number]>('UPDATE users SET is_super = ? WHERE id = ?'),
    setApiToken: db.prepare<[string, number]>('UPDATE users SET api_token_hash = ? WHERE id = ?'),
    idByApiToken: db.prepare<[string], number>('SELECT id FROM users WHERE api_token_hash = ?').pluck(),
    /** Moves with every change to users or roles, by any connection (migration 006's triggers). */
    rev: db.prepare<[], string>("SELECT value FROM meta WHERE key = 'users_rev'").pluck(),
    rolesOf: db.prepare<[number], RoleRow>('SELECT user_id, datatype_id, role FROM dataset_roles WHERE user_id = ?'),
    allRoles: db.prepare<[], RoleRow>('SELECT user_id, datatype_id, role FROM dataset_roles'),
    rolesOn: db.prepare<[number], RoleRow>('SELECT user_id, datatype_id, role FROM dataset_roles WHERE datatype_id = ?'),
    grant: db.prepare<[number, number, DatasetRole, number, string]>(
      `INSERT INTO dataset_roles (user_id, datatype_id, role, granted_by, granted_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_id, datatype_id) DO UPDATE SET role = excluded.role, granted_by = excluded.granted_by,
       granted_at = excluded.granted_at WHERE role != excluded.role`,
    ),
    revoke: db.prepare<[number, number]>('DELETE FROM dataset_roles WHERE user_id = ? AND datatype_id = ?'),
  };
}

export type UserStore = ReturnType<typeof build>;

const byDb = new WeakMap<Db, UserStore>();

/** The `users` and `dataset_roles` tables; statements prepared once per connection. */
export function userStore(db: Db): UserStore {
  let s = byDb.get(db);
  if (!s) byDb.set(db, (s = build(db)));
  return s;
}
