import { EventEmitter } from 'node:events';
import type { TrackedJob } from '../../../shared/schemas/job.js';
import type { LiveStatus } from '../../../shared/schemas/sync.js';

/** In-process notifications: job progress (streamed as SSE) and record changes. */
export interface ServiceEvents {
  job: [{ id: number; userId: number; job: TrackedJob }];
  records: [{ datasetUuid: string; recordUuids: string[] }];
  /** Live sync status of a remote (the app header's status line). */
  sync: [LiveStatus];
  /** A user was made a super-user, once committed: work waiting for one (live sync) may go on. */
  superUser: [{ userId: number }];
}

export class EventBus extends EventEmitter<ServiceEvents> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}

/** One server-sent event as it is written: its name and its JSON text. */
export interface QueuedEvent {
  event: string;
  data: string;
}

/** What a subscriber that fell behind gets instead of the events it missed: refetch what you show. */
export const RESYNC_EVENT = 'resync';

/**
 * One stream subscriber's events waiting to be written. A client that stops reading (a frozen
 * window, a script that never reads) cannot make the service keep every event forever: past
 * `maxEvents` or `maxChars` of JSON (ServiceConfig eventQueueEvents, eventQueueChars) the queue is replaced by one `resync` event and takes no
 * more until that is written. The client then refetches what it shows, which covers every
 * event dropped meanwhile (they all happened before it read the resync); the events after it
 * flow as before.
 */
export class EventQueue {
  private items: QueuedEvent[] = [];
  private chars = 0;
  /** Events dropped since the last resync was queued (told to the client in it). */
  private dropped = 0;
  private behind = false;

  constructor(
    private readonly maxEvents: number,
    private readonly maxChars: number,
  ) {}

  push(event: string, data: unknown): void {
    if (this.behind) {
      this.dropped++;
      return;
    }
    const text = JSON.stringify(data);
    if (this.items.length < this.maxEvents && this.chars + text.length <= this.maxChars) {
      this.items.push({ event, data: text });
      this.chars += text.length;
      return;
    }
    this.behind = true;
    this.dropped = this.items.length + 1;
    this.items = [];
    this.chars = 0;
  }

  /** The next event to write, the resync first once the queue overflowed. */
  shift(): QueuedEvent | undefined {
    if (this.behind) {
      this.behind = false;
      return { event: RESYNC_EVENT, data: JSON.stringify({ dropped: this.dropped }) };
    }
    const m = this.items.shift();
    if (m) this.chars -= m.data.length;
    return m;
  }

  get empty(): boolean {
    return !this.behind && this.items.length === 0;
  }
}
