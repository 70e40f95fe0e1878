import type { FieldTypeName } from '../../../shared/fieldTypes.js';
import { FIELD_TYPES } from '../../../shared/fieldTypes.js';
import type { OdrRecord } from '../../../shared/schemas/record.js';
import { SYSTEM_USER, type Domain } from '../domain/domain.js';
import type { User } from '../domain/users.js';
import { superUserNow } from './actingUser.js';
import type { RemoteClient } from './remoteClient.js';
import type { SyncState } from '../store/syncState.js';
import { transaction } from '../store/tx.js';

/** What pull and push share for one remote: the local service, the remote, the sync state. */
export class EngineContext {
  /** Field types by field uuid, from the pulled templates: records are normalised with them. */
  types = new Map<string, FieldTypeName>();

  /** What this engine wrote so far (records pulled, operations pushed): a stopped run says it. */
  readonly done = { pulled: 0, pushed: 0 };

  constructor(
    readonly d: Domain,
    readonly state: SyncState,
    readonly remote: RemoteClient,
    private acting: User,
    readonly remoteUser: string,
  ) {}

  /** The user the sync acts for, as last read (recheck). */
  get user(): User {
    return this.acting;
  }

  /**
   * Before each batch or step that writes as the user (a pull's batch, a pushed operation):
   * the user read again, RightLost once no longer a super-user (actingUser.ts). What earlier
   * batches committed stays; the cursor and the outbox keep the rest for the next run.
   */
  recheck(): User {
    return (this.acting = superUserNow(this.d, this.acting));
  }

  get db() {
    return this.d.ctx.db;
  }

  /** Runs `fn` in one transaction whose change-log rows are marked as coming from the server. */
  asSync<T>(fn: () => T): T {
    const marked = () => this.d.log.as('sync', fn);
    // Inside a batch's transaction no savepoint: nothing between here and that transaction
    // catches a failure, so it rolls back as a whole anyway, and a savepoint per pulled record
    // cost a twentieth of a first pull.
    return this.db.inTransaction ? marked() : transaction(this.db, marked, 'immediate');
  }

  /**
   * Outside a transaction it comes from the rendered-record cache, so a push's conflict check and
   * its settle share one render (a transaction bypasses the cache: it may yet roll back), and one
   * parse: the same cached bytes (the record unchanged since) give the same object back, which
   * its readers never change.
   */
  localRecord(uuid: string): OdrRecord | null {
    const row = this.d.store.byUuid(uuid);
    if (!row) return null;
    const opts = { viewer: SYSTEM_USER, now: this.d.now(), apiBase: '' };
    if (this.db.inTransaction) return this.d.render(row, opts);
    const bytes = this.d.renderJson(row, opts);
    let rec = this.parsed.get(bytes);
    if (!rec) this.parsed.set(bytes, (rec = JSON.parse(bytes.toString('utf8')) as OdrRecord));
    return rec;
  }

  /** Local renders parsed, by their cached bytes (dropped with them). */
  private readonly parsed = new WeakMap<Buffer, OdrRecord>();

  /** A remote record tree with our local uuids, for comparing with the local copy. */
  localised(rec: OdrRecord): OdrRecord {
    const map = (r: OdrRecord): OdrRecord => ({
      ...r,
      record_uuid: this.state.localOf(r.record_uuid),
      records: (r.records ?? []).map(map),
    });
    return map(rec);
  }

  /** A field's type: as the server's template says, else as here. */
  private typeOf(fieldUuid: string): FieldTypeName | undefined {
    return this.types.get(fieldUuid) ?? this.d.schema().fieldsByUuid.get(fieldUuid)?.type.name;
  }

  /** A Boolean field (its writes are guarded under their own name, guards.ts). */
  readonly boolean = (fieldUuid: string): boolean => this.typeOf(fieldUuid) === 'Boolean';

  /** A Tags field (its selection is `tags`, not `values`). */
  readonly tags = (fieldUuid: string): boolean => this.typeOf(fieldUuid) === 'Tags';

  /** An option field that holds at most one option (Single Radio, Single Select). */
  readonly single = (fieldUuid: string): boolean => {
    const t = this.typeOf(fieldUuid);
    return !!(t && FIELD_TYPES[t].single);
  };
}
