/**
 * `sub(rid)`: the record `seed` selects and every record under it, by parent (indexed). Put it
 * before a statement that joins `sub`; `seed` takes the statement's first parameter.
 */
export const subtree = (seed: 'rid' | 'uuid'): string =>
  `WITH RECURSIVE sub(rid) AS (SELECT ${seed === 'rid' ? '?' : 'rid FROM records WHERE uuid = ?'}
   UNION ALL SELECT r.rid FROM records r JOIN sub ON r.parent_rid = sub.rid)`;
