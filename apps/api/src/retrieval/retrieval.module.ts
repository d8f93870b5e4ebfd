import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { EmbeddingsModule } from '@strata/platform/embeddings/embeddings.module';
import { HistoryModule } from '@strata/platform/history/history.module';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { MaintenanceModule } from '@strata/maintenance/maintenance.module';
import { AutoEmbedder } from './embeddings/auto-embedder.service';
import { ConfigureEmbeddingsHandler } from './embeddings/configure-embeddings.handler';
import { EmbeddingJobs } from './embeddings/embedding-jobs.service';
import { EmbeddingsController } from './embeddings/embeddings.controller';
import { DeleteNodeEmbeddingHandler, SetNodeEmbeddingHandler } from './embeddings/node-embedding.handlers';
import { SemanticSearchService } from './embeddings/semantic-search.service';
import { VECTORS } from '@strata/platform/embeddings/vectors.port';
import { VECTORS_PROVIDER } from './embeddings/vectors.provider';
import { EntitiesController } from './entities/entities.controller';
import { EntityResolutionService } from './entities/entity-resolution.service';
import { FindOrCreateEntityHandler } from './entities/find-or-create-entity.handler';
import { MergeEntitiesHandler } from './entities/merge-entities.handler';
import { RealityEntityController } from './entities/reality-entity.controller';
import { RelateEntitiesHandler } from './entities/relate-entities.handler';
import { SetAliasHandler } from './entities/set-alias.handler';
import { DecayNodeHandler } from './evolve/evolve-decay.handler';
import { EvolveController } from './evolve/evolve.controller';
import { EvolveHandler } from './evolve/evolve.handler';

import { ContextController } from './context/context.controller';
import { ContextRetrievalService } from './context/context-retrieval.service';
import { NodeAnnotator } from './context/node-annotator';
import { RankingService } from './retrieve/ranking.service';
import { RetrieveController } from './retrieve/retrieve.controller';
import { RetrieveService } from './retrieve/retrieve.service';
import { StaleDerivationsService } from './retrieve/stale-derivations.service';
import { ChunkSearchService } from './search/chunk-search.service';
import { SearchController } from './search/search.controller';
import { TextSearchService } from './search/text-search.service';
import { ReviewQueuesService } from './shortcuts/review-queues.service';
import { ShortcutsController } from './shortcuts/shortcuts.controller';
import { TraversalService } from './traverse/traversal.service';
import { TraverseController } from './traverse/traverse.controller';

/**
 * Retrieval (issue 4): search, /retrieve, /traverse, /evolve, aliases and entities,
 * embeddings and the vector index, and the GET query shortcuts.
 */
@Module({
  imports: [CqrsModule, ScopeModule, HistoryModule, MaintenanceModule, EmbeddingsModule],
  controllers: [
    SearchController,
    RetrieveController,
    ContextController,
    TraverseController,
    EvolveController,
    EntitiesController,
    RealityEntityController,
    EmbeddingsController,
    ShortcutsController,
  ],
  providers: [
    // commands
    SetAliasHandler,
    MergeEntitiesHandler,
    FindOrCreateEntityHandler,
    RelateEntitiesHandler,
    EvolveHandler,
    DecayNodeHandler,
    ConfigureEmbeddingsHandler,
    SetNodeEmbeddingHandler,
    DeleteNodeEmbeddingHandler,
    // queries
    TextSearchService,
    ChunkSearchService,
    SemanticSearchService,
    RankingService,
    RetrieveService,
    StaleDerivationsService,
    ContextRetrievalService,
    NodeAnnotator,
    ReviewQueuesService,
    TraversalService,
    EntityResolutionService,
    // embeddings (their jobs live in the global JobRegistry)
    VECTORS_PROVIDER,
    AutoEmbedder,
    EmbeddingJobs,
  ],
  exports: [VECTORS, RankingService, EntityResolutionService],
})
export class RetrievalModule {}
