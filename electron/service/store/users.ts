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

/** The `users` table: accounts, password hashes and API token hashes. */
export const userStore = perConnection((db: Db) => {
  const s = {
    byId: db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?'),
    byEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
    count: db.prepare<[], number>('SELECT COUNT(*) FROM users').pluck(),
    firstSuper: db.prepare<[], UserRow>('SELECT * FROM users WHERE is_super = 1 ORDER BY id LIMIT 1'),
    insert: db.prepare<[string, string, string, string, number, string]>(
      'INSERT INTO users (email, first_name, last_name, password_hash, is_super, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setPassword: db.prepare<[string, string]>('UPDATE users SET password_hash = ? WHERE email = ?'),
    setApiToken: db.prepare<[string, number]>('UPDATE users SET api_token_hash = ? WHERE id = ?'),
    byApiToken: db.prepare<[string], number>('SELECT id FROM users WHERE api_token_hash = ?').pluck(),
  };
  return {
    byId: (id: number) => s.byId.get(id),
    byEmail: (email: string) => s.byEmail.get(email),
    count: () => s.count.get() ?? 0,
    firstSuperUser: () => s.firstSuper.get(),
    insert: (u: NewUserRow) =>
      Number(s.insert.run(u.email, u.firstName, u.lastName, u.passwordHash, u.isSuper ? 1 : 0, u.createdAt).lastInsertRowid),
    /** False when no user has that email. */
    setPassword: (email: string, hash: string) => s.setPassword.run(hash, email).changes > 0,
    setApiTokenHash: (userId: number, hash: string) => void s.setApiToken.run(hash, userId),
    idByApiTokenHash: (hash: string) => s.byApiToken.get(hash),
  };
});
