import { liveNodeDelta, RecordedEvent } from '@strata/domain/events';
import { UsageCounters } from '@strata/auth/plans/plan-limits';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import type { Clock } from '@strata/domain/time';

interface Cached {
  count: number;
  /** log position the count includes */
  position: number;
  /** clock seconds */
  loaded_at: number;
}

/** recount now and then so nothing can make the cache drift for long */
const MAX_AGE_SECS = 60;

/**
 * Live-node counts per organization for plan limits: counted once from the graph read model,
 * then moved by each event as it is projected inside the open write batch (so the requests
 * later in one group commit see what the earlier ones added, as a count of the read model
 * would); a rolled-back batch drops every entry, and purge and clear drop the organization's.
 */
export class EmbeddedUsageCounters implements UsageCounters {
  private readonly live = new Map<string, Cached>();

  constructor(
    private readonly storage: EmbeddedStorage,
    private readonly accounts: AccountsReadModel,
    private readonly clock: Clock,
  ) {
    storage.onApplied((events) => this.onApplied(events));
    storage.onRolledBack(() => this.live.clear());
  }

  liveNodes(org: string, exact: boolean): number {
    const c = this.live.get(org);
    if (!exact && c && this.clock.now() - c.loaded_at < MAX_AGE_SECS) return c.count;
    const count = this.storage.graph.countNodesSync(org, {});
    this.live.set(org, { count, position: this.storage.runner.appliedPosition, loaded_at: this.clock.now() });
    return count;
  }

  creditsUsed(org: string, period: string): number {
    return this.accounts.creditsUsed(org, period);
  }

  private onApplied(events: RecordedEvent[]): void {
    for (const e of events) {
      const org = e.metadata.org_id;
      const c = this.live.get(org);
      if (!c) continue;
      if (e.type === 'GraphPurged' || e.type === 'GraphCleared') {
        this.live.delete(org);
        continue;
      }
      const d = liveNodeDelta(e);
      if (d !== 0 && e.position > c.position) c.count += d;
    }
  }
}
