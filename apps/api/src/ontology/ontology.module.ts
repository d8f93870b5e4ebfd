import { OntologyJobs } from './ontology-jobs';
import { Module } from '@nestjs/common';
import { HistoryModule } from '@strata/platform/history/history.module';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { OntologyScope } from './ontology-scope';
import { ObjectHandlers } from './objects/object.handlers';
import { ObjectsController } from './objects/objects.controller';
import { ProposalHandlers } from './proposals/proposal.handlers';
import { ProposalsController } from './proposals/proposals.controller';
import { ExtractionController } from './extraction/extraction.controller';
import { OntologyExtraction } from './extraction/ontology-extraction.service';
import { EmbeddingsModule } from '@strata/platform/embeddings/embeddings.module';
import { ObjectGraph } from './reads/object-graph.service';
import { ObjectSearch } from './reads/object-search.service';
import { OntologyReads } from './reads/ontology-reads.handlers';
import { OntologyReadsController } from './reads/ontology-reads.controller';
import { ProposeSchemaController } from './propose-schema/propose-schema.controller';
import { SchemaProposals } from './propose-schema/schema-proposal.service';
import { SemanticGuidance } from './schemas/semantic-guidance.handler';
import { RelationHandlers } from './relations/relation.handlers';
import { RelationsController } from './relations/relations.controller';
import { OntologyCoreModule } from '@strata/ontology/ontology-core.module';
import { SchemaHandlers } from './schemas/schema.handlers';
import { SchemasController } from './schemas/schemas.controller';
import { TypeHandlers } from './types/type.handlers';
import { TypesController } from './types/types.controller';

/** The operational ontology (REFERENCE §11): schemas, types, proposals and domain objects. */
@Module({
  imports: [ScopeModule, HistoryModule, EmbeddingsModule, OntologyCoreModule],
  controllers: [SchemasController, TypesController, ObjectsController, RelationsController, ProposalsController, ExtractionController, OntologyReadsController, ProposeSchemaController],
  providers: [OntologyJobs, OntologyScope, SchemaHandlers, TypeHandlers, ObjectHandlers, RelationHandlers, ProposalHandlers, OntologyExtraction, ObjectSearch, ObjectGraph, OntologyReads, SchemaProposals, SemanticGuidance],
})
export class OntologyModule {}
