import { Inject, Injectable } from '@nestjs/common';
import { CHANGE_TYPE_OF, Streams } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { DEPENDENCY_EDGE_TYPES, PremiseFacts, StalePremise, stalePremises } from '@strata/domain/retrieval';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScope } from '@strata/platform/scope/read-scope';

export interface StaleItem {
  node: NodeRecord;
  stale_premises: StalePremise[];
  stale_since: number;
}

/**
 * `stale_derivations` (REFERENCE §5.6): live nodes whose premises changed after the node's
 * latest version. Version times come from the streams (node history is the node's stream);
 * a pair is only examined when the premise shows activity after the derived node was created.
 */
@Injectable()
export class StaleDerivationsService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async all(scope: ReadScope): Promise<StaleItem[]> {
    const org = scope.org;
    const edges = await this.graph.listEdges(org, { edge_types: [...DEPENDENCY_EDGE_TYPES] });
    if (!edges.length) return [];
    const nodes = await this.graph.getNodes(org, [...new Set(edges.flatMap((e) => [e.from_uid, e.to_uid]))]);
    const supersededAt = new Map<string, number[]>();
    const supersedes = async (uid: string) => {
      let t = supersededAt.get(uid);
      if (!t) {
        t = (await this.graph.listEdges(org, { to_uid: uid, edge_types: ['Supersedes'] })).map((e) => e.created_at);
        supersededAt.set(uid, t);
      }
      return t;
    };
    const versionTimes = new Map<string, { last: number; updates: number[] }>();
    const versions = async (uid: string) => {
      let v = versionTimes.get(uid);
      if (!v) {
        const stream = await this.events.readStream(Streams.node(org, uid));
        const versioned = stream.filter((e) => CHANGE_TYPE_OF[e.type]);
        v = {
          last: versioned.length ? versioned[versioned.length - 1].metadata.occurred_at : 0,
          updates: versioned.filter((e) => e.type === 'NodeUpdated').map((e) => e.metadata.occurred_at),
        };
        versionTimes.set(uid, v);
      }
      return v;
    };

    const byDerived = new Map<string, typeof edges>();
    for (const e of edges) {
      const d = nodes.get(e.from_uid);
      // a premise the caller cannot read is absent for it, with the edge to it (§13.1)
      if (!d || d.tombstone_at !== null || !scope.allows(d.uid) || !nodes.has(e.to_uid) || !scope.allows(e.to_uid)) continue;
      const list = byDerived.get(d.uid) ?? [];
      list.push(e);
      byDerived.set(d.uid, list);
    }
    const out: StaleItem[] = [];
    for (const [dUid, deps] of byDerived) {
      const d = nodes.get(dUid)!;
      const facts: PremiseFacts[] = [];
      for (const e of deps) {
        const p = nodes.get(e.to_uid)!;
        const sup = await supersedes(p.uid);
        // nothing about P happened after D existed: D's first version already saw it all
        if (Math.max(p.updated_at, p.tombstone_at ?? 0, ...sup) <= d.created_at) continue;
        facts.push({
          uid: p.uid,
          label: p.label,
          node_type: p.node_type,
          edge_type: e.edge_type,
          update_times: (await versions(p.uid)).updates,
          tombstone_at: p.tombstone_at,
          superseded_times: sup,
        });
      }
      if (!facts.length) continue;
      const r = stalePremises((await versions(dUid)).last, facts);
      if (r.stale_since !== null) out.push({ node: d, stale_premises: r.premises, stale_since: r.stale_since });
    }
    return out.sort((a, b) => a.stale_since - b.stale_since || (a.node.uid < b.node.uid ? -1 : a.node.uid > b.node.uid ? 1 : 0));
  }
}
