import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { CHANGE_TYPE_OF, EdgeVersionedData, NodeVersionedData, RecordedEvent, Streams } from '@strata/domain/events';
import { EdgeRecord, NodeRecord, VersionRecord } from '@strata/domain/records';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';

/** Node and edge history straight from their event streams (DESIGN rule 6). */
@Injectable()
export class VersionHistoryService {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  async nodeHistory(org: string, uid: string): Promise<VersionRecord<NodeRecord>[]> {
    const stream = await this.events.readStream(Streams.node(org, uid));
    const out = stream.filter((e) => CHANGE_TYPE_OF[e.type]).map((e) => toVersion<NodeRecord>(e, (e.data as NodeVersionedData).node));
    if (!out.length) throw Errors.notFound(`node ${uid} not found`, { uid });
    return out;
  }

  async nodeSnapshot(org: string, uid: string, version: number): Promise<NodeRecord> {
    const history = await this.nodeHistory(org, uid);
    const v = history.find((h) => h.version === version);
    if (!v) throw Errors.notFound(`node ${uid} version ${version} not found`, { uid });
    return v.snapshot;
  }

  async edgeHistory(org: string, uid: string): Promise<VersionRecord<EdgeRecord>[]> {
    const stream = await this.events.readStream(Streams.edge(org, uid));
    const out = stream.filter((e) => CHANGE_TYPE_OF[e.type]).map((e) => toVersion<EdgeRecord>(e, (e.data as EdgeVersionedData).edge));
    if (!out.length) throw Errors.notFound(`edge ${uid} not found`, { uid });
    return out;
  }
}

function toVersion<T extends { version: number }>(e: RecordedEvent, snapshot: T): VersionRecord<T> {
  const data = e.data as { reason?: string | null };
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
