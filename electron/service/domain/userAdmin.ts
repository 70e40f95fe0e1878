import {
  ROLE_OF_PERMISSION,
  type PermissionName,
  type UserCreate,
  type UserCreated,
  type UserSummary,
  type UserUpdate,
} from '../../../shared/schemas/users.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import { datasetStore } from '../store/datasets.js';
import type { Domain } from './domain.js';
import { OdrError, badRequest, forbidden, notFound } from './errors.js';
import { isAdmin } from './permissions.js';
import { tx } from './tx.js';
import { generatePassword, type User } from './users.js';
import { WHO } from './rights.js';

// Managing users and their dataset roles: the real server's POST /user and POST
// /user/permissions (docs/odr-server.md), and the Users screen's /local routes. Every change
// moves users_rev (migration 006), so it counts from the caller's next request on.

const unknownEmail = (email: string) => new OdrError(404, `This unrecognized email: "${email}" can't be found.`);

/**
 * POST /user: super-users only. Creates the user (random password, as the real server) or
 * finds them, and answers with the metadata records of the datasets they created: locally the
 * first record of each non-master dataset they own (the record POST /dataset redirects to).
 */
export async function ensureUser(
  d: Domain,
  caller: User,
  form: { user_email?: string; first_name?: string; last_name?: string },
): Promise<{ user: User; datasets: (apiBase: string) => OdrRecord[] }> {
  const email = (form.user_email ?? '').trim();
  // The real server's checks, in its order: a too-short email first, then the caller.
  if (email.length < 5) throw notFound('User Email Parameter');
  if (!caller.isSuper) throw forbidden('Only a super-user may add users.');
  let user = d.users.findByEmail(email);
  if (!user) {
    user = await d.users.create({ email, password: generatePassword(), firstName: form.first_name, lastName: form.last_name });
  } else if ((form.first_name && form.first_name !== user.firstName) || (form.last_name && form.last_name !== user.lastName)) {
    d.users.setNames(user.id, form.first_name || user.firstName, form.last_name || user.lastName);
    user = d.users.get(user.id)!;
  }
  const owner = user;
  // Rendered as the user sees them, as on the real server.
  return { user, datasets: (apiBase) => ownedDatasetRecords(d, owner, apiBase) };
}

function ownedDatasetRecords(d: Domain, owner: User, apiBase: string): OdrRecord[] {
  const store = datasetStore(d.ctx.db);
  const out: OdrRecord[] = [];
  for (const dt of d.schema().topLevel()) {
    if (dt.isMaster || dt.ownerId !== owner.id) continue;
    const uuid = store.firstTopRecordUuid(dt.id);
    const rec = uuid === undefined ? undefined : d.store.byUuid(uuid);
    if (!rec) continue;
    try {
      out.push(d.render(rec, { viewer: owner, now: d.now(), apiBase }));
    } catch {
      // As the real server: a record that cannot be shown is left out, not an error.
    }
  }
  return out;
}

/**
 * POST /user/permissions: sets a user's role on a top-level dataset (`none` removes it). Super-
 * users may grant on any dataset, the dataset's admins on theirs; nobody changes their own role,
 * and super-users have no roles (they pass every check), as on the real server.
 */
export function grantRole(d: Domain, caller: User, form: { user_email?: string; dataset_uuid?: string; permission?: string }): void {
  if (form.user_email === undefined) throw badRequest('user_email is required ("" names yourself).');
  if (!form.dataset_uuid) throw badRequest('Dataset UUID is required.');
  if (!form.permission) throw badRequest('Permission type is required.');
  if (!(form.permission in ROLE_OF_PERMISSION))
    throw badRequest(
      `permission must be one of ${Object.keys(ROLE_OF_PERMISSION)
        .map((p) => `"${p}"`)
        .join(', ')}`,
    );
  const role = ROLE_OF_PERMISSION[form.permission as PermissionName];
  const target = form.user_email === '' ? caller : d.users.findByEmail(form.user_email);
  if (!target) {
    if (!caller.isSuper) throw forbidden(`Insufficient permissions: roles are granted by ${WHO.grantsRoles}, to users that exist.`);
    throw unknownEmail(form.user_email);
  }
  const dt = d.datatype(form.dataset_uuid, 'Datatype');
  if (!isAdmin(caller, dt)) throw forbidden(`Only ${WHO.grantsRoles} may grant roles on it.`);
  if (target.isSuper) throw badRequest('Unable to change group membership for a Super-Admin.');
  if (dt.parentId !== null)
    throw badRequest('Unable to change group membership for a child datatype, since only top-level datatypes have groups');
  if (dt.isMaster) throw badRequest('Roles are granted on datasets, not on master templates.');
  if (target.id === caller.id) throw badRequest('Unable to change own group membership.');
  const before = target.roles.get(dt.id) ?? null;
  if (before === role) return;
  tx(d.ctx, () => {
    d.users.setRole(target.id, dt.id, role, caller.id);
    d.log.append(d.now(), {
      op: 'user.role',
      userId: caller.id,
      datasetUuid: dt.uuid,
      old: { user: target.email, role: before },
      new: { user: target.email, role },
    });
  });
}

/** GET /local/users (super-users). */
export function listUsers(d: Domain, caller: User): UserSummary[] {
  if (!caller.isSuper) throw forbidden('Only a super-user may list users.');
  const schema = d.schema();
  return d.users.all().map((u) => ({
    id: u.id,
    email: u.email,
    first_name: u.firstName,
    last_name: u.lastName,
    super_user: u.isSuper,
    roles: [...u.roles]
      .flatMap(([dtId, role]) => {
        const dt = schema.datatypes.get(dtId);
        return dt ? [{ dataset_uuid: dt.uuid, dataset_name: dt.name, role }] : [];
      })
      .sort((a, b) => a.dataset_name.localeCompare(b.dataset_name)),
  }));
}

/**
 * POST /local/users (super-users): a new user only. An email already taken is a 409 naming it, so
 * "Add user" can never reset someone's password or make them super-user by mistake.
 */
export async function createUser(d: Domain, caller: User, input: UserCreate): Promise<UserCreated> {
  if (!caller.isSuper) throw forbidden('Only a super-user may add users.');
  const taken = d.users.findByEmail(input.email);
  if (taken) throw new OdrError(409, `${taken.email} is already a user; change them in the list instead.`);
  // Chosen here when none was given, and answered once: nobody could sign in with it otherwise.
  const generated = input.password === undefined ? generatePassword() : undefined;
  const user = await d.users.create({
    email: input.email,
    password: input.password ?? generated!,
    firstName: input.first_name,
    lastName: input.last_name,
    isSuper: input.super_user ?? false,
  });
  if (user.isSuper) {
    tx(d.ctx, () => d.log.append(d.now(), { op: 'user.super', userId: caller.id, old: { user: user.email, super: false }, new: true }));
    d.ctx.events.emit('superUser', { userId: user.id });
  }
  const summary = listUsers(d, caller).find((u) => u.id === user.id)!;
  return generated === undefined ? summary : { ...summary, generated_password: generated };
}

/** PUT /local/users/{id} (super-users): names, password, super-user status. */
export async function updateUser(d: Domain, caller: User, id: number, change: UserUpdate): Promise<UserSummary> {
  if (!caller.isSuper) throw forbidden('Only a super-user may change users.');
  const target = d.users.get(id);
  if (!target) throw notFound('User');
  if (change.super_user === false && target.isSuper && d.users.superUsers() === 1)
    throw new OdrError(409, `${target.email} is the last super-user; make another one first.`);
  if (change.password !== undefined) await d.users.setPassword(target.email, change.password);
  tx(d.ctx, () => {
    if (change.first_name !== undefined || change.last_name !== undefined)
      d.users.setNames(id, change.first_name ?? target.firstName, change.last_name ?? target.lastName);
    if (change.super_user !== undefined && change.super_user !== target.isSuper) {
      d.users.setSuper(id, change.super_user);
      d.log.append(d.now(), {
        op: 'user.super',
        userId: caller.id,
        old: { user: target.email, super: target.isSuper },
        new: change.super_user,
      });
    }
  });
  // After the commit: a listener may start work that reads the users again.
  if (change.super_user === true && !target.isSuper) d.ctx.events.emit('superUser', { userId: id });
  return listUsers(d, d.users.get(caller.id) ?? caller).find((u) => u.id === id)!;
}
