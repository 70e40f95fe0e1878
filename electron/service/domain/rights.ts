import { forbidden, type OdrError } from './errors.js';
import type { DatatypeInfo } from './schemaCache.js';

// Who may do what, worded once from the rules in permissions.ts, so that every 403 names who
// may (a message that leaves out a role sends its holders to ask for the wrong right).

export const WHO = {
  administers: "the dataset's owner, its admins and super-users",
  editsAll: "the dataset's owner, its admins and editors, and super-users",
  editsRecord:
    "its creator or its top-level record's creator (unless their role on the dataset is a view role), the dataset's owner, its admins and editors, and super-users",
  viewsRecord:
    "its creator, the dataset's owner, its admins, users with a view, edit or admin role on it, super-users, and everyone who may see the dataset once the record is public",
  viewsDataset: 'its owner, users with a role on it and super-users (everyone once it is public)',
  addsRecords:
    "the dataset's owner, its admins and editors, super-users, and users without a view or view-only role who may see the dataset",
  grantsRoles: "super-users and the dataset's owner and admins",
} as const;

/** Reading a dataset that is not public (yet) to the caller; ODR's wording first. */
export const datasetHidden = (dt: Pick<DatatypeInfo, 'uuid'>): OdrError =>
  forbidden(`Insufficient permissions: dataset ${dt.uuid} is not public; only ${WHO.viewsDataset} may see it.`);

/** "Only <who> may <action>." for the dataset-admin rights (delete, publish, template, thumbnails). */
export const adminsOnly = (action: string): OdrError => forbidden(`Only ${WHO.administers} may ${action}.`);
