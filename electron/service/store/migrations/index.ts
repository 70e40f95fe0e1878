import core from './001_core.js';
import jobs from './002_jobs.js';
import search from './003_search.js';
import sync from './004_sync.js';
import fieldSearch from './005_field_search.js';
import numericSearch from './006_numeric_search.js';
import views from './007_views.js';
import syncFiles from './008_sync_files.js';
import history from './009_history.js';
import datasetRoles from './010_dataset_roles.js';
import templateRemovals from './011_template_removals.js';
import numberIndexNumericOnly from './012_number_index_numeric_only.js';
import datasetSummaries from './013_dataset_summaries.js';
import datasetCounts from './014_dataset_counts.js';
import searchTerms from './015_search_terms.js';
import syncOutboxRev from './016_sync_outbox_rev.js';
import recordTrash from './017_record_trash.js';
import datasetCountsGen from './018_dataset_counts_gen.js';
import recordTrashHidden from './019_record_trash_hidden.js';
import searchTermInstances from './020_search_term_instances.js';
import recordTrashChildren from './021_record_trash_children.js';
import recordTrashAncestors from './022_record_trash_ancestors.js';
import searchSkips from './023_search_skips.js';
import syncOutboxUndone from './024_sync_outbox_undone.js';
import recordIdFloor from './025_record_id_floor.js';
import fileIdFloor from './026_file_id_floor.js';
import idFloors from './027_id_floors.js';
import retiredIds from './028_retired_ids.js';
import datasetChangedAt from './029_dataset_changed_at.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Append only: a shipped migration never changes (its hash is checked at start-up).
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'core', sql: core },
  { version: 2, name: 'jobs', sql: jobs },
  { version: 3, name: 'search', sql: search },
  { version: 4, name: 'sync', sql: sync },
  { version: 5, name: 'field_search', sql: fieldSearch },
  { version: 6, name: 'numeric_search', sql: numericSearch },
  { version: 7, name: 'views', sql: views },
  { version: 8, name: 'sync_files', sql: syncFiles },
  { version: 9, name: 'history', sql: history },
  { version: 10, name: 'dataset_roles', sql: datasetRoles },
  { version: 11, name: 'template_removals', sql: templateRemovals },
  { version: 12, name: 'number_index_numeric_only', sql: numberIndexNumericOnly },
  { version: 13, name: 'dataset_summaries', sql: datasetSummaries },
  { version: 14, name: 'dataset_counts', sql: datasetCounts },
  { version: 15, name: 'search_terms', sql: searchTerms },
  { version: 16, name: 'sync_outbox_rev', sql: syncOutboxRev },
  { version: 17, name: 'record_trash', sql: recordTrash },
  { version: 18, name: 'dataset_counts_gen', sql: datasetCountsGen },
  { version: 19, name: 'record_trash_hidden', sql: recordTrashHidden },
  { version: 20, name: 'search_term_instances', sql: searchTermInstances },
  { version: 21, name: 'record_trash_children', sql: recordTrashChildren },
  { version: 22, name: 'record_trash_ancestors', sql: recordTrashAncestors },
  { version: 23, name: 'search_skips', sql: searchSkips },
  { version: 24, name: 'sync_outbox_undone', sql: syncOutboxUndone },
  { version: 25, name: 'record_id_floor', sql: recordIdFloor },
  { version: 26, name: 'file_id_floor', sql: fileIdFloor },
  { version: 27, name: 'id_floors', sql: idFloors },
  { version: 28, name: 'retired_ids', sql: retiredIds },
  { version: 29, name: 'dataset_changed_at', sql: datasetChangedAt },
];
