import { Logger } from '@nestjs/common';
import { RecordedEvent } from '@strata/domain/events';
import { UsageCounters } from '@strata/auth/plans/plan-limits';
import { countAfter, countEffect } from './node-count-deltas';
import type { Clock } from '@strata/domain/time';

/** Where servers mode counts live nodes: the graph read model (MongoDB) and its checkpoint. */
export interface NodeCountSource {
  /** the position the graph read model has applied at least */
  checkpoint(): Promise<number>;
  /** live nodes of the organization in the graph read model now */
  countLive(org: string): Promise<number>;
}

interface Cached {
  count: number;
  /** log position the count includes (events after it are added as they are seen) */
  position: number;
  loaded_at: number;
}

/** a count this old is read again in the background */
const MAX_AGE_MS = 30_000;
/** near a limit (`exact`), a count this old is read again */
const EXACT_AGE_MS = 1_000;
/** node changes kept to bring a fresh count forward (covers the worker's lag) */
const MAX_RECENT = 100_000;
const WARM_CONCURRENCY = 4;

/**
 * Live-node counts for plan limits in servers mode, answered synchronously from memory (the
 * auth/limit path never waits on MongoDB). A count is read from the graph read model at the
 * worker's checkpoint and brought forward by the node events this replica's log subscription
 * delivers (AccountsMirror follows the whole log), including the ones after the checkpoint that
 * the worker has not projected yet. Counts are refreshed in the background; every organization
 * known at start-up is counted then, and a new organization starts at zero.
 *
 * With several replicas a limit is soft by the writes in flight on the others within the
 * subscription delay, as `exact: true` cannot wait for a database here.
 */
export class ServerUsageCounters implements UsageCounters {
  private readonly live = new Map<string, Cached>();
  private recent: { org: string; position: number; delta: number }[] = [];
  /** checkpoints of the counts being read: changes after the oldest must be kept */
  private readonly reading = new Set<{ position: number }>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly log = new Logger('UsageCounters');

  constructor(
    private readonly source: NodeCountSource,
    private readonly credits: { creditsUsed(org: string, period: string): number },
    private readonly clock: Clock,
  ) {}

  private now(): number {
    return this.clock.now() * 1000;
  }

  liveNodes(org: string, exact: boolean): number {
    const c = this.live.get(org);
    const age = c ? this.now() - c.loaded_at : Infinity;
    if (age >= (exact ? EXACT_AGE_MS : MAX_AGE_MS)) void this.refresh(org);
    // never counted yet (a refresh is on its way): what this replica has seen happen
    return c ? c.count : countAfter(0, 0, this.recent.filter((r) => r.org === org));
  }

  creditsUsed(org: string, period: string): number {
    return this.credits.creditsUsed(org, period);
  }

  /** Counts these organizations in the background, a few at a time. */
  async warm(orgs: string[]): Promise<void> {
    const queue = [...orgs];
    const worker = async () => {
      for (let org = queue.shift(); org !== undefined; org = queue.shift()) await this.refresh(org);
    };
    await Promise.all(Array.from({ length: WARM_CONCURRENCY }, worker));
  }

  /** Reads the organization's count again (one read at a time per organization). */
  refresh(org: string): Promise<void> {
    let p = this.loading.get(org);
    if (!p) {
      p = this.load(org).finally(() => this.loading.delete(org));
      this.loading.set(org, p);
    }
    return p;
  }

  private async load(org: string): Promise<void> {
    const mark = { position: Infinity };
    this.reading.add(mark);
    try {
      const position = (mark.position = await this.source.checkpoint());
      const counted = await this.source.countLive(org);
      const mine = this.recent.filter((r) => r.org === org);
      this.live.set(org, { count: countAfter(counted, position, mine), position, loaded_at: this.now() });
      this.reading.delete(mark);
      this.prune(Math.min(position, ...[...this.reading].map((m) => m.position)));
    } catch (err) {
      this.reading.delete(mark);
      // the previous count (or the lower bound) keeps answering; the next call tries again
      this.log.warn(`could not count the live nodes of ${org}: ${(err as Error).message}`);
    }
  }

  /** Every event the log subscription delivers, in log order. */
  observe(e: RecordedEvent): void {
    const org = e.metadata?.org_id;
    if (e.type === 'OrganizationCreated') {
      const id = e.data.org_id;
      if (id && !this.live.has(id)) this.live.set(id, { count: 0, position: e.position, loaded_at: this.now() });
      return;
    }
    if (!org) return;
    const effect = countEffect(e);
    switch (effect.kind) {
      case 'none':
        return;
      case 'delta': {
        this.recent.push({ org, position: e.position, delta: effect.delta });
        if (this.recent.length > MAX_RECENT * 1.1) this.recent.splice(0, this.recent.length - MAX_RECENT);
        const c = this.live.get(org);
        if (c && e.position > c.position) c.count = Math.max(0, c.count + effect.delta);
        return;
      }
      case 'reset_to_zero':
        this.forget(org);
        this.live.set(org, { count: 0, position: e.position, loaded_at: this.now() });
        return;
      case 'recount':
        this.live.delete(org);
        void this.refresh(org);
        return;
    }
  }

  /** drops the organization's remembered changes (a clear makes them meaningless) */
  private forget(org: string): void {
    this.recent = this.recent.filter((r) => r.org !== org);
  }

  /** changes at or before the graph read model's checkpoint are in every later count */
  private prune(checkpoint: number): void {
    if (!Number.isFinite(checkpoint)) return;
    let n = 0;
    while (n < this.recent.length && this.recent[n].position <= checkpoint) n++;
    if (n) this.recent.splice(0, n);
  }
}
