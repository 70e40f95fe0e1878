import { randomBytes, scrypt as scryptCb, timingSafeEqual, createHash } from 'node:crypto';
import { promisify } from 'node:util';
import type { Ctx } from './context.js';
import { nowStamp } from './context.js';
import { OdrError, forbidden } from './errors.js';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export interface User {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  isSuper: boolean;
  /** How ODR shows a user in `_create_auth`: "First Last", else the email. */
  display: string;
}

interface UserRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  is_super: number;
  password_hash: string;
}

const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  firstName: r.first_name,
  lastName: r.last_name,
  isSuper: r.is_super === 1,
  display: `${r.first_name} ${r.last_name}`.trim() || r.email,
});

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

async function checkPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(got, expected);
}

export class Users {
  private readonly byId = new Map<number, User>();

  constructor(private readonly ctx: Ctx) {}

  get(id: number): User | undefined {
    let u = this.byId.get(id);
    if (!u) {
      const row = this.ctx.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
      if (!row) return undefined;
      u = toUser(row);
      this.byId.set(id, u);
    }
    return u;
  }

  findByEmail(email: string): User | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
    return row ? toUser(row) : undefined;
  }

  count(): number {
    return this.ctx.db.prepare('SELECT COUNT(*) FROM users').pluck().get() as number;
  }

  firstSuperUser(): User | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM users WHERE is_super = 1 ORDER BY id LIMIT 1').get() as UserRow | undefined;
    return row ? toUser(row) : undefined;
  }

  async create(input: { email: string; password: string; isSuper?: boolean; firstName?: string; lastName?: string }): Promise<User> {
    if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw new OdrError(400, `"${input.email}" is not an email address`);
    if (input.password.length < 8) throw new OdrError(400, 'A password needs at least 8 characters');
    if (this.findByEmail(input.email)) throw new OdrError(409, `A user with email "${input.email}" already exists`);
    const hash = await hashPassword(input.password);
    const info = this.ctx.db
      .prepare(`INSERT INTO users (email, first_name, last_name, password_hash, is_super, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(input.email, input.firstName ?? '', input.lastName ?? '', hash, input.isSuper ? 1 : 0, nowStamp(this.ctx));
    return this.get(Number(info.lastInsertRowid))!;
  }

  async setPassword(email: string, password: string): Promise<void> {
    if (password.length < 8) throw new OdrError(400, 'A password needs at least 8 characters');
    const hash = await hashPassword(password);
    const info = this.ctx.db.prepare('UPDATE users SET password_hash = ? WHERE email = ?').run(hash, email);
    if (info.changes === 0) throw new OdrError(404, `This unrecognized email: "${email}" can't be found.`);
  }

  /** Username/password check for POST /token; undefined on any mismatch. */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    const row = this.ctx.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
    if (!row) {
      await hashPassword(password); // same cost whether or not the user exists
      return undefined;
    }
    return (await checkPassword(password, row.password_hash)) ? toUser(row) : undefined;
  }

  /** A new API token for the job routes' `x-auth` header; only its hash is kept. */
  issueApiToken(userId: number): string {
    const token = randomBytes(24).toString('base64url');
    this.ctx.db.prepare('UPDATE users SET api_token_hash = ? WHERE id = ?').run(sha256(token), userId);
    return token;
  }

  byApiToken(token: string): User | undefined {
    const id = this.ctx.db.prepare('SELECT id FROM users WHERE api_token_hash = ?').pluck().get(sha256(token)) as number | undefined;
    return id === undefined ? undefined : this.get(id);
  }

  /**
   * `user_email` names the user to act as. Naming oneself is always fine; naming anyone else
   * needs a super-user (403), and the named user must exist (404).
   */
  actAs(caller: User, email: string | undefined | null): User {
    if (email === undefined || email === null || email === '' || email.toLowerCase() === caller.email.toLowerCase()) return caller;
    if (!caller.isSuper) throw forbidden('Only a super-user may act for another user (user_email).');
    const target = this.findByEmail(email);
    if (!target) throw new OdrError(404, `This unrecognized email: "${email}" can't be found.`);
    return target;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
