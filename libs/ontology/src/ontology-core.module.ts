import { Module } from '@nestjs/common';
import { ApprovalNodes } from './approval-nodes';
import { EntityFinder } from './entity-finder';
import { ExtractionStager } from './extraction-stager';
import { ObjectWriter } from './object-writer';
import { OntologyStore } from './ontology-store';
import { ProposalApplier } from './proposal-applier';
import { RelationSlots } from './relation-slots';

/**
 * What the ontology area and ingestion's `ontology` pass both use: the ontology read model of
 * this process, the domain-object writer, proposal application, Approval nodes, the entity
 * finder and the extraction of one source against a schema. One instance per process.
 */
@Module({
  providers: [OntologyStore, ObjectWriter, ApprovalNodes, ProposalApplier, EntityFinder, ExtractionStager, RelationSlots],
  exports: [OntologyStore, ObjectWriter, ApprovalNodes, ProposalApplier, EntityFinder, ExtractionStager, RelationSlots],
})
export class OntologyCoreModule {}
