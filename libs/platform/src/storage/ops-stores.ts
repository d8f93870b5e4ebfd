import * as path from 'node:path';
import type { ActivityStore } from '@strata/auth/activity/activity-store.port';
import { SqliteActivityStore } from '@strata/auth/activity/sqlite-activity-store';
import type { Clock, IdGenerator } from '@strata/domain/time';
import type { DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import { SqliteDocumentLedger } from '@strata/extraction/ledger/sqlite-document-ledger';
import type { JobQueue } from '@strata/jobs/queue/job-queue.port';
import { SqliteJobQueue } from '@strata/jobs/queue/sqlite-job-queue';
import type { ScheduleStore } from '@strata/jobs/schedules/schedule-store.port';
import { SqliteScheduleStore } from '@strata/jobs/schedules/sqlite-schedule-store';
import type { JobStore } from '@strata/jobs/store/job-store.port';
import { SqliteJobStore } from '@strata/jobs/store/sqlite-job-store';
import { OPS_FILE } from './embedded-storage';
import type { ServerStores } from './server-stores';

/** Provider token of {@link OpsStores}. */
export const OPS_STORES = Symbol('OPS_STORES');

/**
 * The operational stores beside the event log (jobs, their queue and schedules, API-key
 * activity, the document ledger), bound to their adapters here with the other storage ports:
 * `ops.db` beside the data on the embedded default, the shared servers in servers mode.
 *
 * Each is opened when first asked for, so a process that runs no jobs and serves no requests
 * (the CLI's application context) never opens `ops.db`. The module that asks for a store owns
 * it and closes it, except the servers' own (`jobs`, `activity`), which close with the servers.
 */
export class OpsStores {
  private readonly opened = new Map<string, unknown>();

  constructor(
    private readonly dataDir: string,
    private readonly servers: ServerStores | null,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** whether the stores are the servers' (closed with them) rather than this process's own */
  get shared(): boolean {
    return this.servers !== null;
  }

  jobs(): JobStore {
    return this.once('jobs', () => this.servers?.jobs ?? new SqliteJobStore(this.opsFile));
  }

  jobQueue(): JobQueue {
    return this.once('jobQueue', () => this.servers?.jobQueue(this.clock, this.ids) ?? new SqliteJobQueue(this.opsFile, this.clock, this.ids));
  }

  schedules(): ScheduleStore {
    return this.once('schedules', () => this.servers?.scheduleStore() ?? new SqliteScheduleStore(this.opsFile));
  }

  activity(): ActivityStore {
    return this.once('activity', () => this.servers?.activity ?? new SqliteActivityStore(this.opsFile));
  }

  documentLedger(): DocumentLedger {
    return this.once('documentLedger', () => this.servers?.documentLedger() ?? new SqliteDocumentLedger(this.opsFile));
  }

  private get opsFile(): string {
    return path.join(this.dataDir, OPS_FILE);
  }

  private once<T>(name: string, open: () => T): T {
    if (!this.opened.has(name)) this.opened.set(name, open());
    return this.opened.get(name) as T;
  }
}
