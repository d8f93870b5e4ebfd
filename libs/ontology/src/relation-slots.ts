import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Streams } from '@strata/domain/events';
import { OntologyErrors, OntologyRelationSlotClaimedData, RelationTypeRecord } from '@strata/domain/ontology';
import { EVENT_STORE, EventStore, ExpectedRevision } from '@strata/event-store/event-store.port';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { OntologyStore } from './ontology-store';

type Side = OntologyRelationSlotClaimedData['side'];

/**
 * The lock of relation cardinality across replicas (REFERENCE §11 `cardinality_violation`).
 * The check reads the graph's edges, which in servers mode each replica sees a little after
 * another replica wrote them: two replicas could both find an endpoint free. So a create under
 * a one_to_one or one_to_many limit also appends to a stream per endpoint it fills, expecting
 * the revision read before the check, and the claims already there are checked too: an endpoint
 * is held while one of its claimed edges is in the log and not tombstoned (a claim whose edge
 * the read model does not show yet holds it). Of two concurrent creates one append commits;
 * the other is refused by the log and decided again, where it finds the winner's claim: 409.
 * The embedded default decides writes one after another on a current graph: no lock there.
 */
@Injectable()
export class RelationSlots {
  constructor(
    private readonly store: OntologyStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * Checks the claims on the endpoints the edge would fill (409 when one holds) and returns
   * what stages this edge's claims once it is created. A no-op on the embedded default and
   * for relations without a limit.
   */
  async reserve(tx: GraphTx, rel: RelationTypeRecord, from: string, to: string): Promise<(edgeUid: string) => void> {
    if (!this.store.concurrentDeciders || !rel.cardinality || rel.cardinality === 'many_to_many') return () => undefined;
    const slots: { side: Side; uid: string; field: 'from_uid' | 'to_uid' }[] = rel.symmetric
      ? [
          ...(rel.cardinality === 'one_to_one' ? [{ side: 'either' as const, uid: from, field: 'from_uid' as const }] : []),
          { side: 'either', uid: to, field: 'to_uid' },
        ]
      : [...(rel.cardinality === 'one_to_one' ? [{ side: 'from' as const, uid: from, field: 'from_uid' as const }] : []), { side: 'to', uid: to, field: 'to_uid' }];
    const claims: { stream: string; expected: ExpectedRevision; data: OntologyRelationSlotClaimedData }[] = [];
    for (const s of slots) {
      const stream = Streams.ontologyRelationSlot(tx.org, createHash('sha256').update(`${rel.id}\u0000${s.side}\u0000${s.uid}`).digest('hex').slice(0, 32));
      const held = await this.events.readStream(stream);
      for (const e of held) if (e.type === 'OntologyRelationSlotClaimed' && (await this.holds(tx, e.data.edge_uid))) throw OntologyErrors.cardinalityViolation(rel.name, rel.cardinality, s.field, s.uid);
      const revision = held.length ? held[held.length - 1].revision : -1;
      claims.push({ stream, expected: revision < 0 ? 'no_stream' : revision, data: { edge_uid: '', relation_type_id: rel.id, endpoint_uid: s.uid, side: s.side } });
    }
    return (edgeUid) => {
      for (const c of claims) tx.emit(c.stream, 'OntologyRelationSlotClaimed', { ...c.data, edge_uid: edgeUid }, c.expected);
    };
  }

  /** whether a claimed edge still fills its endpoint: in the log (not purged) and not tombstoned */
  private async holds(tx: GraphTx, edgeUid: string): Promise<boolean> {
    const edge = await tx.edge(edgeUid);
    if (edge) return edge.tombstone_at === null;
    return (await this.events.streamRevision(Streams.edge(tx.org, edgeUid))) >= 0;
  }
}
