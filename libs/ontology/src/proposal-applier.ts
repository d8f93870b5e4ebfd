import { Injectable } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import { OntologyEventTypes as T, ProposalRecord, decideApplied, decideApplyFailed, proposedObject } from '@strata/domain/ontology';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { namedObjectType } from './domain-objects';
import { ObjectWriter } from './object-writer';
import { OntologyStore } from './ontology-store';

/**
 * Writes an approved proposal's object on the caller's transaction: applied with its node, or —
 * when the write is refused (the schema no longer active, a duplicate, a field that no longer
 * validates) — apply_failed with the reason, nothing else written. Reviewers' approvals,
 * `/ontology/extract` and the ontology pass of ingestion all apply through it.
 */
@Injectable()
export class ProposalApplier {
  constructor(
    private readonly store: OntologyStore,
    private readonly writer: ObjectWriter,
  ) {}

  async applyStaged(tx: GraphTx, p: ProposalRecord, visible: (uid: string) => boolean, revision: number | 'no_stream'): Promise<ProposalRecord> {
    const stream = Streams.ontologyProposal(tx.org, p.id);
    const o = proposedObject(p);
    let next: ProposalRecord;
    try {
      const schema = this.store.activeSchema(tx.org, p.schema_id);
      const type = namedObjectType(this.store.types(tx.org, schema.id), p.object_type);
      const node = await this.writer.create(tx, type, { ...o, allow_duplicate: false, proposal_id: p.id, source_uids: p.source_uids }, visible);
      next = decideApplied(p, node.uid, tx.now, tx.ctx.principal.id);
      tx.emit(stream, T.OntologyProposalApplied, { proposal: next }, revision);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      next = decideApplyFailed(p, `${err.code}: ${err.message}`);
      tx.emit(stream, T.OntologyProposalApplyFailed, { proposal: next }, revision);
    }
    return next;
  }
}
