import { randomBytes, scrypt as scryptCb, timingSafeEqual, createHash } from 'node:crypto';
import { promisify } from 'node:util';
import type { Ctx } from './context.js';
import { nowStamp } from './context.js';
import { OdrError, RightLost, forbidden } from './errors.js';
import type { DatasetRole } from '../../../shared/schemas/users.js';
import { userStore, type RoleRow, type UserRow } from '../store/users.js';

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
  /** Role per top-level datatype id (domain/permissions.ts reads it). */
  roles: ReadonlyMap<number, DatasetRole>;
  /** users_rev when this object was built: equal revs mean the same rights (the render cache keys read checks by it). */
  rev: string;
}

const toUser = (r: UserRow, roles: readonly RoleRow[], rev: string): User => ({
  id: r.id,
  email: r.email,
  firstName: r.first_name,
  lastName: r.last_name,
  isSuper: r.is_super === 1,
  display: `${r.first_name} ${r.last_name}`.trim() || r.email,
  roles: new Map(roles.map((x) => [x.datatype_id, x.role])),
  rev,
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
  private rev: string | undefined;

  constructor(private readonly ctx: Ctx) {}

  private get rows(): ReturnType<typeof userStore> {
    return userStore(this.ctx.db);
  }

  /**
   * Every User handed out (to a request, the token cache, a job) is built from rows as of the
   * current users_rev: a demoted super-user or a revoked role counts from the next lookup on,
   * whichever process or connection changed it. One indexed read per lookup.
   */
  private fresh(): void {
    const rev = this.rows.revision();
    if (rev !== this.rev) {
      this.byId.clear();
      this.rev = rev;
    }
  }

  private load(row: UserRow): User {
    const u = toUser(row, this.rows.rolesOf(row.id), this.rev ?? '');
    this.byId.set(row.id, u);
    return u;
  }

  /**
   * `user` read again (rows as of the current users_rev), for work that goes on after its request
   * (a job's batches, a streamed answer's chunks): RightLost once the account was removed.
   */
  now(user: User): User {
    const u = this.get(user.id);
    if (!u) throw new RightLost('your account was removed');
    return u;
  }

  get(id: number): User | undefined {
    this.fresh();
    const u = this.byId.get(id);
    if (u) return u;
    const row = this.rows.byId(id);
    return row ? this.load(row) : undefined;
  }

  findByEmail(email: string): User | undefined {
    this.fresh();
    const row = this.rows.byEmail(email);
    return row ? (this.byId.get(row.id) ?? this.load(row)) : undefined;
  }

  count(): number {
    return this.rows.count();
  }

  firstSuperUser(): User | undefined {
    const row = this.rows.firstSuperUser();
    return row ? this.get(row.id) : undefined;
  }

  /** Every user with their roles (GET /local/users). */
  all(): User[] {
    const roles = new Map<number, RoleRow[]>();
    for (const r of this.rows.allRoles()) roles.set(r.user_id, [...(roles.get(r.user_id) ?? []), r]);
    return this.rows.all().map((r) => toUser(r, roles.get(r.id) ?? [], this.rows.revision() ?? ''));
  }

  superUsers(): number {
    return this.rows.superUserCount();
  }

  setNames(id: number, firstName: string, lastName: string): void {
    this.rows.setNames(id, firstName, lastName);
  }

  setSuper(id: number, isSuper: boolean): void {
    this.rows.setSuper(id, isSuper);
  }

  /** Sets (or with null removes) a user's role on a top-level datatype. */
  setRole(userId: number, datatypeId: number, role: DatasetRole | null, grantedBy: number): void {
    this.rows.setRole(userId, datatypeId, role, grantedBy, nowStamp(this.ctx));
  }

  /** Roles on one datatype (kept with a dataset in the trash). */
  rolesOn(datatypeId: number): RoleRow[] {
    return this.rows.rolesOn(datatypeId);
  }

  async create(input: { email: string; password: string; isSuper?: boolean; firstName?: string; lastName?: string }): Promise<User> {
    if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw new OdrError(400, `"${input.email}" is not an email address`);
    if (input.password.length < 8) throw new OdrError(400, 'A password needs at least 8 characters');
    if (this.findByEmail(input.email)) throw new OdrError(409, `A user with email "${input.email}" already exists`);
    const hash = await hashPassword(input.password);
    const id = this.rows.insert({
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
    if (!this.rows.setPassword(email, hash)) throw new OdrError(404, `This unrecognized email: "${email}" can't be found.`);
  }

  /** Username/password check for POST /token; undefined on any mismatch. */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    const row = this.rows.byEmail(email);
    if (!row) {
      await hashPassword(password); // same cost whether or not the user exists
      return undefined;
    }
    return (await checkPassword(password, row.password_hash)) ? this.get(row.id) : undefined;
  }

  /** A new API token for the job routes' `x-auth` header; only its hash is kept. */
  issueApiToken(userId: number): string {
    const token = randomBytes(24).toString('base64url');
    this.rows.setApiTokenHash(userId, sha256(token));
    return token;
  }

  byApiToken(token: string): User | undefined {
    const id = this.rows.idByApiTokenHash(sha256(token));
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
