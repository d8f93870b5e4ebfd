import { GraphPurgedData, NodeVersionedData, RecordedEvent } from '@strata/domain/events';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { PlannedProjection } from '../projection';
import { TextPlan } from './replay-plan';
import { textDocumentOf } from './text-document';

/** Keeps the FTS5 index in step with live nodes (tombstones leave it, restores return). */
export class TextProjection implements PlannedProjection {
  readonly name = 'text';
  readonly version = 1;
  readonly replayPlanner = 'text';

  constructor(private readonly index: SqliteTextIndex) {}

  apply(e: RecordedEvent): void {
    const org = e.metadata.org_id;
    switch (e.type) {
      case 'NodeCreated':
      case 'NodeUpdated':
      case 'NodeRestored':
      case 'NodeTombstoned': {
        const n = (e.data as NodeVersionedData).node;
        if (n.tombstone_at === null) this.index.upsertSync([textDocumentOf(org, n)]);
        else this.index.removeSync(org, [n.uid]);
        return;
      }
      case 'GraphPurged':
        this.index.removeSync(org, (e.data as GraphPurgedData).node_uids);
        return;
      case 'GraphCleared':
        this.index.removeOrgSync(org);
        return;
    }
  }
  applyPlanned(plan: TextPlan): void {
    if (plan[0] === 1) this.index.upsertSync([plan[1]]);
    else this.index.removeSync(plan[1], [plan[2]]);
  }
  reset(): void {
    this.index.clearSync();
  }
}
