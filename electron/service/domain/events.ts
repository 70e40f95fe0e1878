import { EventEmitter } from 'node:events';
import type { TrackedJob } from '../../../shared/schemas/job.js';
import type { LiveStatus } from '../../../shared/schemas/sync.js';

/** In-process notifications: job progress (streamed as SSE) and record changes. */
export interface ServiceEvents {
  job: [{ id: number; userId: number; job: TrackedJob }];
  records: [{ datasetUuid: string; recordUuids: string[] }];
  /** Live sync status of a remote (the app header's status line). */
  sync: [LiveStatus];
}

export class EventBus extends EventEmitter<ServiceEvents> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}
