import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BatchController } from './batch/batch.controller';
import { BatchCreateHandler } from './batch/batch-create.handler';
import { CreateEdgeHandler, DeleteEdgeHandler, UpdateEdgeHandler } from './edges/edge-commands';
import { EdgesController } from './edges/edges.controller';
import { VersionHistoryService } from '@strata/platform/history/version-history.service';
import { MAINTENANCE_PROVIDERS, MAINTENANCE_STORE, MaintenanceController, ExportService, ImportService } from './maintenance';
import { CreateNodeHandler, DeleteNodeHandler, UpdateNodeHandler } from './nodes/node-commands';
import { DeleteNodesHandler } from './nodes/delete-nodes.handler';
import { NodeQueries } from './nodes/node-queries.service';
import { NodeReadRoute } from './nodes/node-read.route';
import { GraphScope } from './scope/graph-scope';
import { ProvenanceService } from '@strata/platform/scope/provenance.service';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { NodesController } from './nodes/nodes.controller';

/** Generic graph routes: nodes, edges, batch, stats, export/import, decay, purge, clear. */
@Module({
  imports: [CqrsModule],
  controllers: [NodesController, EdgesController, BatchController, MaintenanceController],
  providers: [
    // commands
    CreateNodeHandler,
    UpdateNodeHandler,
    DeleteNodeHandler,
    DeleteNodesHandler,
    CreateEdgeHandler,
    UpdateEdgeHandler,
    DeleteEdgeHandler,
    BatchCreateHandler,
    // queries
    NodeQueries,
    NodeReadRoute,
    // Space/Project scope (retrieval routes use the same services)
    ProvenanceService,
    ReadScopeService,
    GraphScope,
    VersionHistoryService,
    ...MAINTENANCE_PROVIDERS,
  ],
  exports: [VersionHistoryService, NodeQueries, ProvenanceService, ReadScopeService, ExportService, ImportService, MAINTENANCE_STORE],
})
export class GraphModule {}
