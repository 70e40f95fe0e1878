import { randomBytes, scrypt as scryptCb, timingSafeEqual, createHash } from 'node:crypto';
import { promisify } from 'node:util';
import type { Ctx } from './context.js';
import { nowStamp } from './context.js';
import { OdrError, forbidden } from './errors.js';
import { userStore, type UserRow } from '../store/users.js';

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
      const row = userStore(this.ctx.db).byId(id);
      if (!row) return undefined;
      u = toUser(row);
      this.byId.set(id, u);
    }
    return u;
  }

  findByEmail(email: string): User | undefined {
    const row = userStore(this.ctx.db).byEmail(email);
    return row ? toUser(row) : undefined;
  }

  count(): number {
    return userStore(this.ctx.db).count();
  }

  firstSuperUser(): User | undefined {
    const row = userStore(this.ctx.db).firstSuperUser();
    return row ? toUser(row) : undefined;
  }

  async create(input: { email: string; password: string; isSuper?: boolean; firstName?: string; lastName?: string }): Promise<User> {
    if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw new OdrError(400, `"${input.email}" is not an email address`);
    if (input.password.length < 8) throw new OdrError(400, 'A password needs at least 8 characters');
    if (this.findByEmail(input.email)) throw new OdrError(409, `A user with email "${input.email}" already exists`);
    const hash = await hashPassword(input.password);
    const id = userStore(this.ctx.db).insert({
      email: input.email,
      firstName: input.firstName ?? '',
      lastName: input.lastName ?? '',
      passwordHash: hash,
      isSuper: input.isSuper ?? false,
      createdAt: nowStamp(this.ctx),
    });
    return this.get(id)!;
  }

  async setPassword(email: string, password: string): Promise<void> {
    if (password.length < 8) throw new OdrError(400, 'A password needs at least 8 characters');
    const hash = await hashPassword(password);
    if (!userStore(this.ctx.db).setPassword(email, hash)) throw new OdrError(404, `This unrecognized email: "${email}" can't be found.`);
  }

  /** Username/password check for POST /token; undefined on any mismatch. */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    const row = userStore(this.ctx.db).byEmail(email);
    if (!row) {
      await hashPassword(password); // same cost whether or not the user exists
      return undefined;
    }
    return (await checkPassword(password, row.password_hash)) ? toUser(row) : undefined;
  }

  /** A new API token for the job routes' `x-auth` header; only its hash is kept. */
  issueApiToken(userId: number): string {
    const token = randomBytes(24).toString('base64url');
    userStore(this.ctx.db).setApiTokenHash(userId, sha256(token));
    return token;
  }

  byApiToken(token: string): User | undefined {
    const id = userStore(this.ctx.db).idByApiTokenHash(sha256(token));
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
