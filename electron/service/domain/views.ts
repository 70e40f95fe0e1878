import { ColumnLayout, SearchView, type SavedSearch, type SavedSearchCreate } from '../../../shared/schemas/view.js';
import { viewsRepository, type SavedSearchRow, type ViewsRepository } from '../store/views.js';
import type { Domain } from './domain.js';
import { badRequest, notFound } from './errors.js';
import { canViewDatatype } from './permissions.js';
import type { DatatypeInfo } from './schemaCache.js';
import { filterTerms } from './search/viewFilters.js';
import type { User } from './users.js';
import { datasetHidden } from './rights.js';

const MAX_SAVED = 200;

/** A caller's saved searches and column layouts per dataset: checked against the dataset, then stored. */
export class Views {
  private readonly repo: ViewsRepository;

  constructor(private readonly d: Domain) {
    this.repo = viewsRepository(d.ctx.db);
  }

  private readable(user: User, uuid: string): DatatypeInfo {
    const dt = this.d.datatype(uuid);
    if (dt.parentId !== null) throw badRequest('Only permitted on top-level datatypes');
    if (!canViewDatatype(user, dt, this.d.now())) throw datasetHidden(dt);
    return dt;
  }

  /** Fields, options and sort of a view must exist in the dataset (a 400 names what does not). */
  private checkView(dt: DatatypeInfo, view: SearchView): void {
    filterTerms(dt, view.filters ?? []);
    const s = view.sort;
    if (s && !s.startsWith('_') && !dt.fieldsByUuid.has(s) && !dt.fields.some((f) => f.templateFieldUuid === s))
      throw badRequest(`view.sort: ${s} is not a field of dataset ${dt.uuid}`);
  }

  private saved(r: SavedSearchRow): SavedSearch {
    return { id: r.id, dataset_uuid: r.dataset_uuid, name: r.name, view: SearchView.parse(JSON.parse(r.view)), created: r.created };
  }

  list(user: User, dataset: string): SavedSearch[] {
    this.readable(user, dataset);
    return this.repo.savedSearches(user.id, dataset).map((r) => this.saved(r));
  }

  create(user: User, dataset: string, body: SavedSearchCreate): SavedSearch {
    const dt = this.readable(user, dataset);
    this.checkView(dt, body.view);
    if (this.repo.savedSearches(user.id, dataset).length >= MAX_SAVED)
      throw badRequest(`A dataset keeps at most ${MAX_SAVED} saved searches; delete one first`);
    const row = { user_id: user.id, dataset_uuid: dataset, name: body.name, view: JSON.stringify(body.view), created: this.d.now() };
    return this.saved({ ...row, id: this.repo.addSavedSearch(row) });
  }

  /** Only the caller's own; another user's id is as unknown as a missing one. */
  delete(user: User, id: number): void {
    const r = this.repo.savedSearch(id);
    if (!r || r.user_id !== user.id) throw notFound('Saved search');
    this.repo.deleteSavedSearch(id);
  }

  columns(user: User, dataset: string): ColumnLayout | null {
    this.readable(user, dataset);
    const raw = this.repo.columnLayout(user.id, dataset);
    return raw === undefined ? null : ColumnLayout.parse(JSON.parse(raw));
  }

  /** Back to the default columns (as never chosen). */
  resetColumns(user: User, dataset: string): void {
    this.readable(user, dataset);
    this.repo.deleteColumnLayout(user.id, dataset);
  }

  /** `_id` or a field of the dataset, each once. */
  putColumns(user: User, dataset: string, layout: ColumnLayout): ColumnLayout {
    const dt = this.readable(user, dataset);
    const seen = new Set<string>();
    layout.columns.forEach((c, i) => {
      if (c.key !== '_id' && !dt.fieldsByUuid.has(c.key))
        throw badRequest(`columns[${i}].key: ${c.key} is not a field of dataset ${dt.uuid}`);
      if (seen.has(c.key)) throw badRequest(`columns[${i}].key: ${c.key} is listed twice`);
      seen.add(c.key);
    });
    this.repo.putColumnLayout(user.id, dataset, JSON.stringify(layout), this.d.now());
    return layout;
  }
}
