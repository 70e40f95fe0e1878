import { z } from 'zod';
import { Int } from './common.js';
import { OdrRecord } from './record.js';

// Users and per-dataset roles: the real server's POST /user and POST /user/permissions, and
// the /local routes of the Users screen.

/**
 * A user's role on one top-level dataset, weakest first: view_only sees a non-public dataset and
 * its public records; view also its non-public records, fields and files; edit writes every
 * record; admin also changes the template and the dataset, deletes it and grants roles on it.
 */
export const DatasetRole = z.enum(['view_only', 'view', 'edit', 'admin']);
export type DatasetRole = z.infer<typeof DatasetRole>;

/** POST /user/permissions `permission`: the real server's group names, ours, and `none` to revoke. */
export const PermissionName = z.enum(['admin', 'edit_all', 'view_all', 'view_only', 'edit', 'view', 'none']);
export type PermissionName = z.infer<typeof PermissionName>;

/** What each accepted name grants (null: no role). */
export const ROLE_OF_PERMISSION: Record<PermissionName, DatasetRole | null> = {
  admin: 'admin',
  edit_all: 'edit',
  edit: 'edit',
  view_all: 'view',
  view: 'view',
  view_only: 'view_only',
  none: null,
};

/** POST /user (form). */
export const UserForm = z.object({
  user_email: z.string(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
});
/** POST /user: the user and the metadata records of the datasets they created. */
export const UserAnswer = z.object({ user_email: z.string(), datasets: z.array(OdrRecord) });
export type UserAnswer = z.infer<typeof UserAnswer>;

/** POST /user/permissions (form). `user_email` "" means the caller. */
export const PermissionForm = z.object({
  user_email: z.string(),
  dataset_uuid: z.string(),
  permission: PermissionName,
});
/** The real server answers the string "true". */
export const PermissionAnswer = z.object({ success: z.literal('true') });

/** GET /local/users: every user with their roles (super-users only). */
export const UserRole = z.object({ dataset_uuid: z.string(), dataset_name: z.string(), role: DatasetRole });
export type UserRole = z.infer<typeof UserRole>;
export const UserSummary = z.object({
  id: Int,
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  super_user: z.boolean(),
  roles: z.array(UserRole),
});
export type UserSummary = z.infer<typeof UserSummary>;
export const UserList = z.object({ users: z.array(UserSummary) });
export type UserList = z.infer<typeof UserList>;

/** PUT /local/users/{id}: what a super-user may change about a user. */
export const UserUpdate = z
  .object({
    super_user: z.boolean().optional(),
    first_name: z.string().max(200).optional(),
    last_name: z.string().max(200).optional(),
    password: z.string().min(8).max(1000).optional(),
  })
  .strict();
export type UserUpdate = z.infer<typeof UserUpdate>;

/**
 * POST /local/users: a new user in one step (the Users screen's "Add user"). Unlike POST /user it
 * never touches an existing user: a taken email is a 409. No password: a random one.
 */
export const UserCreate = z
  .object({
    email: z.string().trim().min(3).max(320),
    first_name: z.string().max(200).optional(),
    last_name: z.string().max(200).optional(),
    password: z.string().min(8).max(1000).optional(),
    super_user: z.boolean().optional(),
  })
  .strict();
export type UserCreate = z.infer<typeof UserCreate>;
/**
 * POST /local/users' answer: the new user, and the password the service chose when none was
 * given. It is in this one answer only (stored hashed), so the screen that added the user is the
 * one place it can be shown.
 */
export const UserCreated = UserSummary.extend({ generated_password: z.string().optional() });
export type UserCreated = z.infer<typeof UserCreated>;
