import type { Db } from './db.js';
import { shaped } from './prepared.js';
import type { VisibilityFacts } from './visibility.js';

/** Selections of one option or tag, grouped by what the read rule looks at (dataset, creator, public date). */
export interface SelectionGroup extends VisibilityFacts {
  item: number;
  datatype_id: number;
  n: number;
}

/** One selection of an option or tag, with its top-level record. */
export interface SelectionHit extends VisibilityFacts {
  item: number;
  datatype_id: number;
  rid: number;
}

export type SelectionKind = 'options' | 'tags';

/**
 * Selections of the fields joined to their top-level records (`topLevel`: every field is on a
 * top-level datatype, so a record holds an item once and COUNT(*) counts records). By item id
 * (the option/tag index answers) rather than by field (no index: a full scan).
 */
function selectionSql(kind: SelectionKind, topLevel: boolean, select: string, group: string): string {
  const table = kind === 'options' ? 'option_selections' : 'tag_selections';
  const col = kind === 'options' ? 'option_id' : 'tag_id';
  const items = kind === 'options' ? 'radio_options' : 'tags';
  const join = topLevel
    ? 'JOIN records t ON t.rid = s.record_rid'
    : 'JOIN records c ON c.rid = s.record_rid JOIN records t ON t.rid = c.top_rid';
  return `SELECT s.${col} AS item, t.datatype_id, t.created_by, t.public_date, ${select.replace('@count', topLevel ? 'COUNT(*)' : 'COUNT(DISTINCT t.rid)')}
          FROM ${table} s ${join}
          WHERE s.${col} IN (SELECT id FROM ${items} WHERE datafield_id IN (SELECT value FROM json_each(?))) ${group}`;
}

/** Field statistics over option and tag selections (the rules: domain/search/fieldStats.ts). */
export const selectionStats = (db: Db) => ({
  /** Records per item and read-rule group. */
  counts: (kind: SelectionKind, fieldIds: number[], topLevel: boolean): SelectionGroup[] =>
    shaped(db)<[string], SelectionGroup>(selectionSql(kind, topLevel, '@count AS n', 'GROUP BY 1, 2, 3, 4')).all(JSON.stringify(fieldIds)),
  /** Every selection with its top-level record (tag counts are unions over subtrees). */
  hits: (kind: SelectionKind, fieldIds: number[], topLevel: boolean): SelectionHit[] =>
    shaped(db)<[string], SelectionHit>(selectionSql(kind, topLevel, 't.rid', '')).all(JSON.stringify(fieldIds)),
});
