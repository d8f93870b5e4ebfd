import { RecordedEvent } from '@strata/domain/events';
import { EventStore, Subscription } from '@strata/event-store/event-store.port';
import { AcquireDecision, Lease, LeaseTerms, RenewDecision, mayApply, renewIntervalMs } from '../lease/lease';
import { ProjectionStatus } from '../projection';
import { ServerProjection } from './server-projection';
import type { Clock } from '@strata/domain/time';

/** Where checkpoints live (MongoCheckpointStore in production). */
export interface CheckpointStorePort {
  get(name: string): Promise<{ version: number; position: number; last_error: string | null } | null>;
  reset(name: string, version: number): Promise<void>;
  /** false when the stored version is no longer `version` */
  advance(name: string, version: number, position: number): Promise<boolean>;
  setError(name: string, error: string): Promise<void>;
}

/** Where the lease lives (MongoLeaseStore in production). */
export interface LeaseStorePort {
  readonly terms: LeaseTerms;
  acquire(name: string, me: string): Promise<AcquireDecision>;
  renew(name: string, me: string, epoch: number): Promise<RenewDecision>;
  release(name: string, me: string, epoch: number): Promise<void>;
}

export interface RunnerLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ServerProjectionRunnerOptions {
  log: EventStore;
  checkpoints: CheckpointStorePort;
  leases: LeaseStorePort;
  /** applied in this order to every batch (the graph first: others read it) */
  projections: ServerProjection[];
  /** this worker's id in the lease */
  owner: string;
  leaseName?: string;
  /** events per batch while catching up */
  batchSize?: number;
  /** how long a live event waits for others to share its batch (ms) */
  flushDelayMs?: number;
  /** pause before retrying after an error (ms) */
  retryDelayMs?: number;
  /** stop applying this long before the hold expires unrenewed (ms) */
  leaseMarginMs?: number;
  logger?: RunnerLogger;
  /** the service's clock: the hold is checked against it before each batch */
  clock: Clock;
}

class HoldLost extends Error {}

/**
 * The server-mode projection worker: a catch-up subscription on the log feeding batches to
 * the projections, under a lease so only one worker applies them at a time.
 *
 * One session = one hold of the lease: read the checkpoints (resetting a projection whose
 * version changed), subscribe after the lowest one, apply batches (each projection only the
 * events after its own checkpoint), then advance the checkpoints. Any failure ends the
 * session; the next one resumes from the checkpoints, so nothing is skipped and a batch
 * applied twice changes nothing (projections are idempotent).
 */
export class ServerProjectionRunner {
  private readonly leaseName: string;
  private readonly batchSize: number;
  private readonly flushDelayMs: number;
  private readonly retryDelayMs: number;
  private readonly leaseMarginMs: number;
  private readonly logger: RunnerLogger;
  private readonly now: () => number;
  private stopped = false;
  private loopDone: Promise<void> = Promise.resolve();
  private endSession: (() => Promise<void>) | null = null;
  private wakeSleep: (() => void) | null = null;
  private applied = 0;
  private readonly waiters = new Set<{ position: number; resolve: () => void }>();
  /** true while this worker holds the lease (for health and tests) */
  holding = false;

  constructor(private readonly o: ServerProjectionRunnerOptions) {
    this.leaseName = o.leaseName ?? 'projections';
    this.batchSize = o.batchSize ?? 1000;
    this.flushDelayMs = o.flushDelayMs ?? 5;
    this.retryDelayMs = o.retryDelayMs ?? 1000;
    this.leaseMarginMs = o.leaseMarginMs ?? Math.floor(o.leases.terms.ttlMs / 5);
    this.logger = o.logger ?? { log: () => undefined, warn: console.warn, error: console.error };
    this.now = () => o.clock.now() * 1000;
  }

  /** Position of the last batch this worker applied. */
  get appliedPosition(): number {
    return this.applied;
  }

  start(): void {
    this.stopped = false;
    this.loopDone = this.loop();
  }

  /** Applies what is buffered, ends the session and gives the lease up. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeSleep?.();
    await this.endSession?.();
    await this.loopDone;
  }

  /** Resolves once this worker has applied `position` (tests, tools). */
  waitFor(position: number): Promise<void> {
    if (this.applied >= position) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add({ position, resolve }));
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.o.log.headPosition();
    const out: ProjectionStatus[] = [];
    for (const p of this.o.projections) {
      const cp = await this.o.checkpoints.get(p.name);
      const checkpoint = cp?.position ?? 0;
      out.push({ name: p.name, version: p.version, stored_version: cp?.version ?? null, checkpoint, head, lag: Math.max(0, head - checkpoint), last_error: cp?.last_error ?? null });
    }
    return out;
  }

  private async loop(): Promise<void> {
    let standbyLogged = false;
    while (!this.stopped) {
      let decision: AcquireDecision;
      try {
        decision = await this.o.leases.acquire(this.leaseName, this.o.owner);
      } catch (err) {
        this.logger.error(`lease: ${message(err)}`);
        await this.sleep(this.retryDelayMs);
        continue;
      }
      if (decision.outcome === 'held') {
        if (!standbyLogged) this.logger.log(`standing by: projections are applied by ${decision.owner}`);
        standbyLogged = true;
        await this.sleep(Math.min(decision.retry_in_ms, renewIntervalMs(this.o.leases.terms)));
        continue;
      }
      standbyLogged = false;
      const hold = decision.lease;
      this.holding = true;
      try {
        await this.session(hold);
      } catch (err) {
        if (err instanceof HoldLost) this.logger.warn(`lease lost: ${err.message}`);
        else if (this.stopped) this.logger.log(`stopped during a batch (${message(err)}); the next holder resumes from the checkpoints`);
        else this.logger.error(`projections stopped: ${message(err)}; resuming from the checkpoints`);
      } finally {
        this.holding = false;
      }
      if (this.stopped) {
        await this.o.leases.release(this.leaseName, this.o.owner, hold.epoch).catch(() => undefined);
        return;
      }
      await this.sleep(this.retryDelayMs);
    }
  }

  /** Runs until stopped or until something fails; resolves on stop, rejects on failure. */
  private async session(hold: Lease): Promise<void> {
    const starts = new Map<string, number>();
    for (const p of this.o.projections) {
      const cp = await this.o.checkpoints.get(p.name);
      if (!cp || cp.version !== p.version) {
        this.logger.log(`projection ${p.name}: ${cp ? `version ${cp.version} → ${p.version}` : 'new'}; building from the start of the log`);
        await p.reset();
        await this.o.checkpoints.reset(p.name, p.version);
        starts.set(p.name, 0);
      } else starts.set(p.name, cp.position);
    }
    const from = Math.min(...starts.values());
    this.advanced(from);
    this.logger.log(`applying projections from position ${from} (lease epoch ${hold.epoch})`);

    return new Promise<void>((resolve, reject) => {
      let buffer: RecordedEvent[] = [];
      let chain: Promise<void> = Promise.resolve();
      let timer: NodeJS.Timeout | undefined;
      let ended = false;
      let subscription: Subscription | undefined;

      const end = (err?: unknown): Promise<void> => {
        if (!ended) {
          ended = true;
          clearInterval(renewer);
          if (timer) clearTimeout(timer);
          this.endSession = null;
          const settled = chain.then(() => subscription?.close());
          void settled.then(
            () => (err ? reject(err) : resolve()),
            (closeErr) => reject(err ?? closeErr),
          );
        }
        return chain;
      };
      const flush = (): Promise<void> => {
        chain = chain
          .then(async () => {
            if (ended || buffer.length === 0) return;
            const batch = buffer;
            buffer = [];
            await this.applyBatch(batch, starts, hold);
          })
          .catch((err) => void end(err));
        return chain;
      };
      const handler = async (e: RecordedEvent): Promise<void> => {
        if (ended) return;
        buffer.push(e);
        if (buffer.length >= this.batchSize) await flush();
        else if (!timer)
          timer = setTimeout(() => {
            timer = undefined;
            void flush();
          }, this.flushDelayMs);
      };
      const renewer = setInterval(() => {
        this.o.leases.renew(this.leaseName, this.o.owner, hold.epoch).then(
          (r) => {
            if (r.outcome === 'lost') void end(new HoldLost(`now held by ${r.owner ?? 'nobody'}`));
            else {
              hold.expires_at = r.lease.expires_at;
              // a quiet log applies no batch to notice a reset checkpoint (`strata projections rebuild`)
              void this.resetCheckpoint().then(
                (name) => void (name && end(new HoldLost(`checkpoint of ${name} was reset: rebuilding it`))),
                () => undefined,
              );
            }
          },
          (err) => this.logger.warn(`lease renewal failed: ${message(err)}`),
        );
      }, renewIntervalMs(this.o.leases.terms));
      this.endSession = async () => {
        await flush();
        await end();
      };
      subscription = this.o.log.subscribe(from, handler);
      if (this.stopped) void this.endSession();
    });
  }

  /** The first projection whose checkpoint no longer carries its version (reset by an operator or another worker). */
  private async resetCheckpoint(): Promise<string | null> {
    for (const p of this.o.projections) if ((await this.o.checkpoints.get(p.name))?.version !== p.version) return p.name;
    return null;
  }

  private async applyBatch(batch: RecordedEvent[], starts: Map<string, number>, hold: Lease): Promise<void> {
    if (!mayApply(hold, this.now(), this.leaseMarginMs)) throw new HoldLost('the lease could not be renewed in time');
    const last = batch[batch.length - 1].position;
    for (const p of this.o.projections) {
      const start = starts.get(p.name) ?? 0;
      const events = start >= batch[0].position ? batch.filter((e) => e.position > start) : batch;
      if (!events.length) continue;
      try {
        await p.apply(events);
      } catch (err) {
        await this.o.checkpoints.setError(p.name, message(err)).catch(() => undefined);
        throw new Error(`projection ${p.name} failed at positions ${events[0].position}..${last}: ${message(err)}`);
      }
    }
    for (const p of this.o.projections) {
      if (last <= (starts.get(p.name) ?? 0)) continue;
      if (!(await this.o.checkpoints.advance(p.name, p.version, last)))
        throw new HoldLost(`checkpoint of ${p.name} was reset by another version of the worker`);
      starts.set(p.name, last);
    }
    this.advanced(last);
  }

  private advanced(position: number): void {
    this.applied = Math.max(this.applied, position);
    for (const w of [...this.waiters])
      if (w.position <= this.applied) {
        this.waiters.delete(w);
        w.resolve();
      }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wakeSleep = done;
    });
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
