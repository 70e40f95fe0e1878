import { formatTimestamp } from '../../../shared/dates.js';
import { fieldTypesOf, normalizeTemplate } from '../../../shared/legacy.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import type { SaveField, SaveRecord } from '../../../shared/schemas/requests.js';
import { importTemplate } from '../domain/import/importFile.js';
import { RecordImporter } from '../domain/import/importRecords.js';
import { withBulkIndexes } from '../domain/import/bulkIndexes.js';
import { setOption, setPublicDate, setValue } from '../domain/records/ops.js';
import { OdrError } from '../domain/errors.js';
import { saveRecord } from '../domain/records/save.js';
import type { DatatypeInfo } from '../domain/schemaCache.js';
import type { EngineContext } from './engineContext.js';
import { mergePublicDates, mergeRecord, newChildren, sameContent, unchangedSinceBase } from './merge.js';
import { childrenOf, fieldStates, type FieldState } from './recordFields.js';
import { RemoteError } from './remoteClient.js';
import { FileReconciler } from './fileReconcile.js';
import { metaStore } from '../store/meta.js';
import { sweepKeys } from '../store/syncMetaKeys.js';
import { recordLists } from '../store/recordLists.js';
import { templatePartsStore, templateParts } from '../store/templateParts.js';
import { refetchableTransaction } from '../store/tx.js';
import { collectOutbox } from './outbox.js';
import { goneChildren, settleGoneChildren, withoutChildren } from './goneChildren.js';
import { syncOutbox } from '../store/syncOutbox.js';

const PAGE = 100;
/**
 * First-pull pages asked for beyond the one being stored. With one, the next page was asked for
 * only once this one was parsed, so the remote sat idle while it was: two keep it rendering while
 * a page is parsed and stored (docs/sync.md §4).
 */
const PAGES_AHEAD = 2;
/** The modified-records route floors to seconds and compares with >=: re-read a little. */
const OVERLAP_MS = 2000;
/** Records fetched one by one (modified since the cursor): in flight at once, and per commit. */
const FETCH_CONCURRENCY = 6;
const FETCH_BATCH = 60;
/** A first pull of at least this many records defers the value indexes (measured: worth it at 10k). */
export const BULK_PULL_RECORDS = 5000;
/** Refuse a pull that would put more than this share of a dataset in the "removed" bin. */
const MAX_REMOVED_SHARE = 0.5;
/**
 * Real servers do not bump a record's `updated` on POST /file (docs/odr-server.md §3.1, §5.8),
 * so a file uploaded there to an otherwise unchanged record is in no "modified" listing: an
 * incremental pull of a dataset that can hold files re-reads every record this often
 * (ODR_SYNC_SWEEP_SECONDS, default 1 h), at most SWEEP_PER_PULL records per pull.
 */
const sweepMs = () => Number(process.env.ODR_SYNC_SWEEP_SECONDS ?? 3600) * 1000;
/** Records a sweep re-reads per pull: a sweep of a large dataset is spread over several pulls. */
const sweepPerPull = () => Number(process.env.ODR_SYNC_SWEEP_PER_PULL ?? 600);

export type Applied = 'new' | 'replaced' | 'merged' | 'same';

/** Server to here: templates, records (merged with local changes) and deletions. */
export class Puller {
  /** Local records changed by applied server copies, not yet announced. */
  private changed = new Map<string, Set<string>>();

  private readonly files: FileReconciler;

  constructor(private readonly x: EngineContext) {
    this.files = new FileReconciler(x);
  }

  private get templates() {
    return templatePartsStore(this.x.db);
  }

  /**
   * Tells listeners (the open record, tables) which records the server's copies changed. Called
   * after the commit: the importer writes rows directly and announces nothing itself.
   */
  announce(): void {
    const changed = this.changed;
    this.changed = new Map();
    for (const [datasetUuid, ids] of changed) this.x.d.ctx.events.emit('records', { datasetUuid, recordUuids: [...ids] });
  }

  private touched(dataset: string, local: string): void {
    const set = this.changed.get(dataset) ?? new Set<string>();
    set.add(local);
    this.changed.set(dataset, set);
  }

  /**
   * The server's template (child templates included) applied here whenever it changed since the
   * last pull: fields, options and tags added or renamed are written; those it no longer lists are
   * marked removed, their stored values kept and hidden (docs/sync.md §4). Records pulled after
   * this are read with the new template.
   */
  async pullTemplate(dataset: string): Promise<void> {
    const x = this.x;
    const tpl = await x.remote.call((c) => c.request<unknown>('GET', `/template/${dataset}`));
    const t = normalizeTemplate(tpl);
    const now = templateParts(t, tpl);
    const before = this.templates.applied(x.state.remoteId, dataset);
    if (before?.hash !== now.hash || !x.d.schema().datatypesByUuid.has(dataset)) {
      x.asSync(() => {
        // Written for the user: checked after the read, in the write's transaction (a demotion
        // during the GET stops it here).
        x.recheck();
        importTemplate(x.d, x.user, tpl, {});
        this.templates.reconcile(x.state.remoteId, dataset, before, now, x.d.now());
        x.d.ctx.schema.changed();
      });
    }
    x.types = fieldTypesOf(t, x.types);
  }

  /**
   * Brings one server record in. New or untouched here: stored as the server has it. Edited
   * here: merged field by field (merge.ts), conflicts recorded, then the server copy is the base.
   */
  /**
   * `rendered`: the local record as read in the same synchronous step just before (a push's
   * settle reads it outside its transaction, from the render cache). `bases`: the base copies of
   * a whole batch, read in one query inside the same transaction (absent: no base).
   */
  applyRemote(
    theirsRaw: OdrRecord,
    dataset: string,
    importer: RecordImporter,
    rendered?: OdrRecord | null,
    bases?: Map<string, string>,
    written?: ReadonlySet<string>,
  ): Applied {
    const x = this.x;
    const theirs = x.localised(theirsRaw);
    const baseJson = bases ? bases.get(theirsRaw.record_uuid) : x.state.baseJson(theirsRaw.record_uuid);
    const localUuid = theirs.record_uuid;
    const existing = x.d.store.byUuid(localUuid);
    const localRecord = () => (rendered !== undefined && rendered?.record_uuid === localUuid ? rendered : x.localRecord(localUuid));
    // Serialized once: compared with the base, then stored as the base.
    const theirsJson = JSON.stringify(theirsRaw);
    if (unchangedSinceBase(baseJson, theirsJson) && existing) return 'same';
    if (!existing) {
      this.touched(dataset, localUuid);
      x.asSync(() => importer.importNormalized(theirs));
      x.state.setBase(theirsRaw, theirsJson);
      return 'new';
    }
    if (!x.state.hasLocalOnlyState(localUuid, existing.rid)) {
      const local = localRecord();
      // Already what we hold (a push's own answer, mostly): only the base moves. Rewriting the
      // tree would cost a push more than the rest of it (docs/sync.md §5).
      if (local && sameContent(local, theirs)) {
        x.state.setBase(theirsRaw, theirsJson);
        return 'same';
      }
      this.touched(dataset, localUuid);
      const theirChildren = new Set(childrenOf(theirs).map((c) => c.record_uuid));
      // Children created here and not yet on the server keep it on the merge path.
      const unpushedChildren = local ? childrenOf(local).some((c) => !theirChildren.has(c.record_uuid)) : false;
      if (!unpushedChildren) {
        x.asSync(() => {
          new RecordImporter(x.d, x.user, true).importNormalized(theirs);
          this.keepRefused(localUuid);
        });
        x.state.setBase(theirsRaw, theirsJson);
        return 'replaced';
      }
    }
    this.touched(dataset, localUuid);
    const base = baseJson ? (JSON.parse(baseJson) as OdrRecord) : null;
    const local = localRecord();
    let settled = true;
    if (local) {
      const input = {
        theirs,
        base: base ? x.localised(base) : null,
        local,
        pending: x.state.pendingFieldKeys(localUuid),
        single: x.single,
        written,
        held: x.state.heldOptions(localUuid),
      };
      const { apply, conflicts } = mergeRecord(input);
      const dates = mergePublicDates(input);
      for (const c of [...conflicts, ...dates.conflicts]) {
        x.state.recordConflict(dataset, localUuid, c);
        x.state.parkField(c.record, c.field);
      }
      if (apply.size) x.asSync(() => this.store(theirs, local, apply));
      if (dates.apply.size) x.asSync(() => dates.apply.forEach((date, record) => setPublicDate(x.d, x.user, dataset, record, date)));
      // A child whose create is still unsettled here may be on the server already under a uuid
      // not yet mapped (its answer lost): taken as new, it would be doubled here. The push
      // settles that create first; the base stays, so the next pull brings the rest even when
      // the server's copy does not change again.
      const theirIds = new Set(childrenOf(theirs).map((c) => c.record_uuid));
      const creating = childrenOf(local).some((c) => !theirIds.has(c.record_uuid) && syncOutbox(x.db).hasPendingCreate(c.record_uuid));
      const added = newChildren(theirs, local, input.pending);
      if (creating && added.length) settled = false;
      else if (added.length)
        x.asSync(() => {
          const childImporter = new RecordImporter(x.d, x.user, false);
          for (const a of added) {
            const parent = x.d.store.byUuid(a.parent);
            if (parent) childImporter.importChild(a.child, x.types, parent);
          }
        });
      const gone = goneChildren(theirs, input.base, local);
      const kept = gone.length ? settleGoneChildren(x, dataset, localUuid, gone, input.pending) : new Set<string>();
      // Files are merged by identity, not field by field (fileMerge.ts); a kept child's are no
      // server deletion to apply here.
      this.files.reconcile(theirsRaw, base && withoutChildren(base, kept), localUuid, dataset);
    }
    if (settled) x.state.setBase(theirsRaw, theirsJson);
    return 'merged';
  }

  /**
   * Edits the server refused (parked, listed under "needs attention") are written again over the
   * server's copy just stored: a pull never undoes them without a word (docs/sync.md §5). One
   * that no longer applies (its field or option removed from the template) is left out.
   */
  private keepRefused(top: string): void {
    const x = this.x;
    for (const e of x.state.refusedEdits(top)) {
      const p = (e.payload ? JSON.parse(e.payload) : {}) as { value?: unknown; on?: unknown; public_date?: unknown };
      try {
        if (e.op === 'value') setValue(x.d, x.user, e.record_uuid, e.field_uuid, p.value ?? '');
        else if (e.op === 'option') setOption(x.d, x.user, e.record_uuid, e.field_uuid, e.item_uuid, p.on === true);
        else if (typeof p.public_date === 'string') setPublicDate(x.d, x.user, e.dataset_uuid, e.record_uuid, p.public_date);
      } catch (err) {
        if (!(err instanceof OdrError)) throw err;
      }
    }
  }

  /**
   * Stores merged field states. Tags go one by one, exactly as the server holds them: a saved tag
   * set would also select each tag's ancestors (docs/odr-server.md §4.3), which the server has not done.
   */
  private store(theirs: OdrRecord, local: OdrRecord, apply: Map<string, FieldState>): void {
    const x = this.x;
    const L = fieldStates(local);
    const rest = new Map<string, FieldState>();
    for (const [k, s] of apply) {
      if (!s.entry.tags) {
        rest.set(k, s);
        continue;
      }
      const want = new Set(s.entry.tags.map((t) => t.template_tag_uuid));
      const have = new Set(L.get(k)?.entry.tags?.map((t) => t.template_tag_uuid) ?? []);
      for (const u of have) if (!want.has(u)) setOption(x.d, x.user, s.record, s.field, u, false);
      for (const u of want) if (!have.has(u)) setOption(x.d, x.user, s.record, s.field, u, true);
    }
    if (rest.size) saveRecord(x.d, x.user, payloadFor(theirs, rest));
  }

  /**
   * Pull one dataset: first time page by page, then through the modified-records route. Each
   * batch reads the user again first (EngineContext.recheck): a super-user demoted meanwhile
   * stops it between two commits, with the cursor where it was, so the next run reads the rest
   * again and finds the committed records unchanged since their base.
   */
  async pull(dataset: string, onRecord?: () => void): Promise<{ pulled: number; removed: number }> {
    const x = this.x;
    x.recheck();
    await this.pullTemplate(dataset);
    const cursor = x.state.cursor(dataset);
    const importer = new RecordImporter(x.d, x.user, false);
    let pulled = 0;
    const seenIds = new Set<string>();
    // A create made here whose answer was lost may be any server record not known here yet:
    // those wait (and the cursor with them) until the push has settled it (docs/sync.md §4).
    const unsettled = x.state.hasUnsettledCreate(dataset);
    let deferred = false;
    const apply = (r: OdrRecord, bases: Map<string, string> | undefined) => {
      seenIds.add(r.record_uuid);
      if (unsettled && !x.d.store.byUuid(x.state.localOf(r.record_uuid))) {
        deferred = true;
        return;
      }
      if (this.applyRemote(r, dataset, importer, undefined, bases) !== 'same') {
        pulled++;
        x.done.pulled++;
      }
      onRecord?.();
    };
    // One transaction per batch of records: a commit (fsync) per record would cost more than the
    // record itself.
    const applyBatch = {
      immediate: (rs: OdrRecord[]) => {
        refetchableTransaction(x.db, () => {
          // In the batch's write transaction: no change of the user can commit between the
          // check and the batch's writes.
          x.recheck();
          // Edits made here while the pages were on their way are outbox operations before any
          // record is compared: a record with one is merged, never replaced (docs/sync.md §4).
          collectOutbox(x.d.ctx);
          const bases = x.state.baseJsons(rs.map((r) => r.record_uuid));
          // A record listed twice in one batch reads its base again: the first one just moved it.
          const done = new Set<string>();
          for (const r of rs) {
            apply(r, done.has(r.record_uuid) ? undefined : bases);
            done.add(r.record_uuid);
          }
        });
        this.announce();
      },
    };
    const fetchAll = async (ids: string[]) => {
      for (let i = 0; i < ids.length; i += FETCH_BATCH) {
        const got = await mapLimit(ids.slice(i, i + FETCH_BATCH), FETCH_CONCURRENCY, async (id) => {
          try {
            return await x.remote.record(id, x.types);
          } catch (e) {
            if (e instanceof RemoteError && e.kind === 'gone') return null;
            throw e;
          }
        });
        applyBatch.immediate(got.filter((r): r is OdrRecord => r !== null));
      }
    };
    const listedFrom = listingCovers(x.remote.serverTime);
    // A first pull's pages are asked for from here on, the first one with the id listing: both
    // come after the template's answer, whose time is the cursor.
    const pages = cursor ? null : pagesAhead((offset) => x.remote.page(dataset, PAGE, offset, x.types));
    const allIds = await x.remote.allIds(dataset);
    // A first pull of a large dataset is a bulk import: the value indexes are built once at its
    // end (domain/import/bulkIndexes.ts) instead of taking a scattered insert per value, and the
    // search index catches up once it is done. Searches meanwhile are right, only slower.
    // Counted as records not here yet: a dataset read whole again (no cursor from a server that
    // sends no Date header) is no bulk import.
    const known = cursor ? null : new Set(x.state.knownRemotes());
    const arriving = known ? allIds.filter((id) => !known.has(id)).length : 0;
    const release = arriving >= BULK_PULL_RECORDS ? x.d.search.hold() : null;
    try {
      await withBulkIndexes(
        x.d,
        arriving,
        async () => {
          if (!cursor) {
            // Pages are the fast path; the id listing is the truth. Some servers ignore the limit for
            // admins and answer everything on every page (docs/odr-server.md §9.9): a page with nothing new ends
            // it. The next pages are fetched while this one is stored.
            const got = new Set<string>();
            for (;;) {
              const page = await pages!.next();
              const more = page.length === PAGE;
              // Asked for before this page is stored: a full page means there may be more.
              if (more) pages!.fill();
              const fresh = page.filter((r) => !got.has(r.record_uuid) && got.add(r.record_uuid));
              applyBatch.immediate(fresh);
              if (!more || !fresh.length) {
                break;
              }
            }
            await fetchAll(allIds.filter((id) => !got.has(id)));
            this.sweepDone(dataset);
          } else {
            const since = Date.parse(`${cursor.replace(' ', 'T')}Z`) - OVERLAP_MS;
            const modified = await x.remote.modifiedIds(dataset, since);
            const swept = this.sweepSlice(dataset, allIds);
            const ids = [...new Set([...modified, ...swept.ids])];
            await fetchAll(ids);
            swept.commit();
          }
        },
        BULK_PULL_RECORDS,
      );
    } finally {
      release?.();
    }
    if (pulled) x.asSync(() => importer.finish());
    // Every batch is in; the end of the pull (the bin, the cursor) acts for the user too.
    x.recheck();
    // Listed before the pull started, so anything pulled since counts as present too.
    const removed = this.detectRemovals(dataset, new Set([...allIds, ...seenIds]));
    x.state.pulled(dataset, deferred ? cursor : nextCursor(cursor, listedFrom));
    return { pulled, removed };
  }

  private sweepKeys(dataset: string) {
    return sweepKeys(this.x.state.remoteId, dataset);
  }

  private sweepDone(dataset: string): void {
    const keys = this.sweepKeys(dataset);
    const meta = metaStore(this.x.db);
    meta.set(keys.at, String(this.x.d.ctx.clock().getTime()));
    meta.set(keys.next, '');
  }

  /**
   * The records this pull re-reads for the file sweep (docs/sync.md §4): none when the dataset's
   * templates have no file or image field, or the last sweep ended less than ODR_SYNC_SWEEP_SECONDS
   * ago; else the next SWEEP_PER_PULL of the id listing after where the sweep stopped. A dataset
   * with no sweep time yet (pulled by an older build) starts counting now rather than sweeping.
   * `commit` records the progress once those records are stored.
   */
  private sweepSlice(dataset: string, allIds: string[]): { ids: string[]; commit: () => void } {
    const x = this.x;
    const keys = this.sweepKeys(dataset);
    const meta = metaStore(x.db);
    const now = x.d.ctx.clock().getTime();
    const none = { ids: [], commit: () => undefined };
    const last = meta.get(keys.at);
    if (last === undefined) {
      this.sweepDone(dataset);
      return none;
    }
    const dt = x.d.schema().datatypesByUuid.get(dataset);
    const holdsFiles = (d: DatatypeInfo): boolean => d.fields.some((f) => f.type.storage === 'files') || d.children.some(holdsFiles);
    if (!dt || !holdsFiles(dt)) return none;
    const after = meta.get(keys.next) ?? '';
    if (!after && now - Number(last) < sweepMs()) return none;
    // In listing order, resumed after the last uuid swept: stable while records come and go.
    const sorted = [...allIds].sort();
    const from = after ? sorted.findIndex((u) => u > after) : 0;
    const ids = from < 0 ? [] : sorted.slice(from, from + sweepPerPull());
    const finished = from < 0 || from + ids.length >= sorted.length;
    return {
      ids,
      commit: () => (finished ? this.sweepDone(dataset) : meta.set(keys.next, ids.at(-1)!)),
    };
  }

  /** Records we had from the server that it no longer lists go to the bin, never erased. */
  private detectRemovals(dataset: string, ids: Set<string>): number {
    const x = this.x;
    const dt = x.d.schema().datatypesByUuid.get(dataset);
    if (!dt) return 0;
    const locals = new Set(recordLists(x.db).topUuids(dt.id));
    // Listed ones first, without a query each: after a first pull that is every one of them.
    const gone = x.state.knownRemotes().filter((u) => !ids.has(u) && locals.has(x.state.localOf(u)));
    if (gone.length > 10 && gone.length > locals.size * MAX_REMOVED_SHARE) {
      throw new RemoteError(
        'permanent',
        `refusing to pull: the server no longer lists ${gone.length} of ${locals.size} records of ${dataset}; check the remote before syncing again`,
      );
    }
    let n = 0;
    for (const u of gone) n += x.state.markRemoved(x.state.localOf(u), dataset);
    return n;
  }
}

/**
 * A first pull's pages in order, asked for up to PAGES_AHEAD beyond the one taken: `next` takes
 * the oldest asked for (the first one is asked for at once), `fill` asks for more. A page asked
 * for and never taken (the pull ended or stopped first) is dropped, its failure unheard.
 */
function pagesAhead(fetchPage: (offset: number) => Promise<OdrRecord[]>): { next: () => Promise<OdrRecord[]>; fill: () => void } {
  const asked: Promise<OdrRecord[]>[] = [];
  let offset = 0;
  const ask = () => {
    const p = fetchPage(offset);
    offset += PAGE;
    p.catch(() => undefined);
    asked.push(p);
  };
  ask();
  return {
    next: () => asked.shift() ?? Promise.resolve([]),
    fill: () => {
      while (asked.length < PAGES_AHEAD) ask();
    },
  };
}

/**
 * The time up to which the listings a pull is about to ask for are known to be complete: the
 * server's clock on an answer received before they are asked for (the template's, read just
 * before), so no later than the listing itself however slow it is. Never a record's
 * `_update_date`: the records are fetched after the listing, for minutes on a large pull, and one
 * changed meanwhile carries a time the listing does not cover; a record changed in between, not
 * listed, would then be behind the next pull's cursor (test/sync/pullCursor.test.ts). Everything
 * committed before this time is in the listing or the pages, so the next pull starts there (less
 * the overlap) even when every record is older: a dataset whose records share one update second
 * is not read again by each pull. `null`: no answer so far had a Date header (RFC 9110 requires
 * one of a server with a clock; a proxy may drop it), so nothing is known to be covered.
 */
function listingCovers(serverTime: number | null): string | null {
  return serverTime === null ? null : formatTimestamp(new Date(serverTime));
}

/**
 * The cursor after a pull: the listing's time, never earlier than the one before. With no server
 * time it stays where it was: safe, and costly (without one, each pull reads the whole dataset
 * page by page, as a first pull does), which only a server sending no Date header pays.
 */
function nextCursor(cursor: string | null, listedFrom: string | null): string | null {
  if (listedFrom === null) return cursor;
  return cursor !== null && cursor > listedFrom ? cursor : listedFrom;
}

/** A save body carrying the given fields of a record tree (the values the server has). */
export function payloadFor(top: OdrRecord, fields: Map<string, FieldState>): SaveRecord {
  const fieldsOf = (uuid: string): SaveField[] =>
    [...fields.values()]
      .filter((f) => f.record === uuid)
      .map((f) => {
        const e = f.entry;
        if (e.values)
          return { field_uuid: f.field, values: e.values.map((v) => ({ template_radio_option_uuid: v.template_radio_option_uuid })) };
        if (e.tags) return { field_uuid: f.field, tags: e.tags.map((t) => ({ template_tag_uuid: t.template_tag_uuid })) };
        if (e.selected !== undefined) return { field_uuid: f.field, selected: e.selected };
        return { field_uuid: f.field, value: e.value === null || e.value === undefined ? '' : e.value };
      });
  const walk = (r: OdrRecord): SaveRecord => {
    const kids = (r.records ?? []).map(walk).filter((k) => (k.fields?.length ?? 0) > 0 || (k.records?.length ?? 0) > 0);
    return { record_uuid: r.record_uuid, fields: fieldsOf(r.record_uuid), ...(kids.length ? { records: kids } : {}) };
  };
  return walk(top);
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
