import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { CHANGE_TYPE_OF, EdgeVersionedEvent, NodeVersionedEvent, RecordedEvent, Streams, isEdgeVersioned, isNodeVersioned } from '@strata/domain/events';
import { EdgeRecord, NodeRecord, VersionRecord } from '@strata/domain/records';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { rawDataOf } from '@strata/event-store/sqlite/raw-event-data';
import { HISTORY_DEFAULT_LIMIT, HISTORY_PAGE_BYTES, HistoryPage, pageOfHistory } from '@strata/domain/graph';

/**
 * Node and edge history straight from their event streams (DESIGN rule 6), a page at a time
 * (history-page.ts): the stream is read from the page's first version on.
 */
@Injectable()
export class VersionHistoryService {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  async nodeHistory(org: string, uid: string, page: HistoryPage = FIRST_PAGE): Promise<VersionRecord<NodeRecord>[]> {
    return this.history(Streams.node(org, uid), page, (e) => ('node' in e.data ? e.data.node : null), () => Errors.notFound(`node ${uid} not found`, { uid }));
  }

  async nodeSnapshot(org: string, uid: string, version: number): Promise<NodeRecord> {
    const [v] = await this.nodeHistory(org, uid, { from_version: version, limit: 1 });
    if (!v || v.version !== version) throw Errors.notFound(`node ${uid} version ${version} not found`, { uid });
    return v.snapshot;
  }

  async edgeHistory(org: string, uid: string, page: HistoryPage = FIRST_PAGE): Promise<VersionRecord<EdgeRecord>[]> {
    return this.history(Streams.edge(org, uid), page, (e) => ('edge' in e.data ? e.data.edge : null), () => Errors.notFound(`edge ${uid} not found`, { uid }));
  }

  private async history<T extends { version: number }>(
    stream: string,
    page: HistoryPage,
    /** the record a versioned event carries; null for the other kind (a node stream holds node versions only) */
    recordOf: (e: RecordedEvent<NodeVersionedEvent | EdgeVersionedEvent>) => T | null,
    missing: () => Error,
  ): Promise<VersionRecord<T>[]> {
    // The stream is read in chunks from its start until the page is full, never whole. Not
    // from a revision derived from from_version: an imported record keeps its version, so
    // versions and revisions need not line up.
    const sizes = new Map<number, number>();
    const versions: VersionRecord<T>[] = [];
    let bytes = 0;
    let seen = false;
    for (let revision = 0; ; ) {
      const chunk = await this.events.readStream(stream, revision, HISTORY_CHUNK);
      for (const e of chunk) {
        seen = true;
        if (!isNodeVersioned(e) && !isEdgeVersioned(e)) continue;
        const record = recordOf(e);
        if (record === null) continue;
        const v = toVersion<T>(e, record);
        if (v.version < page.from_version) continue;
        const size = rawDataOf(e)?.length ?? JSON.stringify(v.snapshot).length;
        sizes.set(v.version, size);
        versions.push(v);
        bytes += size;
      }
      if (versions.length >= page.limit || bytes > HISTORY_PAGE_BYTES || chunk.length < HISTORY_CHUNK) break;
      revision = chunk[chunk.length - 1].revision + 1;
    }
    if (!seen) throw missing();
    return pageOfHistory(versions, page, (v) => sizes.get(v.version)!);
  }
}

/** events read at a time: small enough that records of megabytes stop near the page's byte budget */
const HISTORY_CHUNK = 32;

/** Every version, as far as one page holds them (callers without paging parameters). */
const FIRST_PAGE: HistoryPage = { from_version: 1, limit: HISTORY_DEFAULT_LIMIT };

function toVersion<T extends { version: number }>(e: RecordedEvent<NodeVersionedEvent | EdgeVersionedEvent>, snapshot: T): VersionRecord<T> {
  const data = e.data;
  return {
    version: snapshot.version,
    change_type: CHANGE_TYPE_OF[e.type],
    changed_at: e.metadata.occurred_at,
    changed_by: e.metadata.principal.kind === 'system' ? 'system' : e.metadata.principal.id,
    agent_id: e.metadata.agent_id ?? null,
    change_reason: data.reason ?? null,
    snapshot,
  };
}
