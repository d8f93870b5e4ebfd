import { getNodeType, searchableText } from '@strata/domain/catalogue';
import { GraphPurgedData, NodeVersionedData, RecordedEvent } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { TextDocument } from '@strata/text-index/text-index.port';
import { EmbeddedProjection } from '../projection';

/** What the full-text index holds for a live node; which props count comes from the catalogue. */
export function textDocumentOf(org: string, n: NodeRecord): TextDocument {
  return {
    org,
    uid: n.uid,
    node_type: n.node_type,
    layer: n.layer,
    label: n.label,
    summary: n.summary ?? '',
    body: searchableText(getNodeType(n.node_type) ?? null, n.props),
  };
}

/** Keeps the FTS5 index in step with live nodes (tombstones leave it, restores return). */
export class TextProjection implements EmbeddedProjection {
  readonly name = 'text';
  readonly version = 1;

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
  reset(): void {
    this.index.clearSync();
  }
}
