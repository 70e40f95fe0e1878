import type { DatasetRole } from '../../../shared/schemas/users.js';
import type { Db } from './db.js';
import { perConnection } from './prepared.js';

/** A row of `users`. */
export interface UserRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  is_super: number;
  password_hash: string;
}

export interface NewUserRow {
  email: string;
  firstName: string;
  lastName: string;
  passwordHash: string;
  isSuper: boolean;
  createdAt: string;
}

/** A row of `dataset_roles`: a user's role on one top-level datatype. */
export interface RoleRow {
  user_id: number;
  datatype_id: number;
  role: DatasetRole;
}

/** The `users` and `dataset_roles` tables: accounts, password and API token hashes, roles. */
export const userStore = perConnection((db: Db) => {
  const s = {
    byId: db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?'),
    byEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
    all: db.prepare<[], UserRow>('SELECT * FROM users ORDER BY email'),
    count: db.prepare<[], number>('SELECT COUNT(*) FROM users').pluck(),
    superCount: db.prepare<[], number>('SELECT COUNT(*) FROM users WHERE is_super = 1').pluck(),
    firstSuper: db.prepare<[], UserRow>('SELECT * FROM users WHERE is_super = 1 ORDER BY id LIMIT 1'),
    insert: db.prepare<[string, string, string, string, number, string]>(
      'INSERT INTO users (email, first_name, last_name, password_hash, is_super, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setPassword: db.prepare<[string, string]>('UPDATE users SET password_hash = ? WHERE email = ?'),
    setNames: db.prepare<[string, string, number]>('UPDATE users SET first_name = ?, last_name = ? WHERE id = ?'),
    setSuper: db.prepare<[number, number]>('UPDATE users SET is_super = ? WHERE id = ?'),
    setApiToken: db.prepare<[string, number]>('UPDATE users SET api_token_hash = ? WHERE id = ?'),
    byApiToken: db.prepare<[string], number>('SELECT id FROM users WHERE api_token_hash = ?').pluck(),
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
  return {
    byId: (id: number) => s.byId.get(id),
    byEmail: (email: string) => s.byEmail.get(email),
    all: () => s.all.all(),
    count: () => s.count.get() ?? 0,
    superUserCount: () => s.superCount.get() ?? 0,
    firstSuperUser: () => s.firstSuper.get(),
    insert: (u: NewUserRow) =>
      Number(s.insert.run(u.email, u.firstName, u.lastName, u.passwordHash, u.isSuper ? 1 : 0, u.createdAt).lastInsertRowid),
    /** False when no user has that email. */
    setPassword: (email: string, hash: string) => s.setPassword.run(hash, email).changes > 0,
    setNames: (id: number, firstName: string, lastName: string) => void s.setNames.run(firstName, lastName, id),
    setSuper: (id: number, isSuper: boolean) => void s.setSuper.run(isSuper ? 1 : 0, id),
    setApiTokenHash: (userId: number, hash: string) => void s.setApiToken.run(hash, userId),
    idByApiTokenHash: (hash: string) => s.byApiToken.get(hash),
    /**
     * Moves with every change to users or roles, by any connection (migration 010's triggers,
     * cascades from a deleted dataset included).
     */
    revision: () => s.rev.get(),
    rolesOf: (userId: number) => s.rolesOf.all(userId),
    allRoles: () => s.allRoles.all(),
    rolesOn: (datatypeId: number) => s.rolesOn.all(datatypeId),
    /** Sets a role (a no-op when it is already that role), or with null removes it. */
    setRole: (userId: number, datatypeId: number, role: DatasetRole | null, grantedBy: number, at: string) =>
      void (role === null ? s.revoke.run(userId, datatypeId) : s.grant.run(userId, datatypeId, role, grantedBy, at)),
  };
});
