import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BatchController } from './batch/batch.controller';
import { BatchCreateHandler } from './batch/batch-create.handler';
import { CreateEdgeHandler, DeleteEdgeHandler, UpdateEdgeHandler } from './edges/edge-commands';
import { EdgesController } from './edges/edges.controller';
import { HistoryModule } from '@strata/platform/history/history.module';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { MaintenanceModule } from '@strata/maintenance/maintenance.module';
import { MAINTENANCE_PROVIDERS, MaintenanceController } from './maintenance';
import { CreateNodeHandler, DeleteNodeHandler, UpdateNodeHandler } from './nodes/node-commands';
import { DeleteNodesHandler } from './nodes/delete-nodes.handler';
import { NodeQueries } from './nodes/node-queries.service';
import { NodeReadRoute } from './nodes/node-read.route';
import { GraphScope } from './scope/graph-scope';
import { NodesController } from './nodes/nodes.controller';

/** Generic graph routes: nodes, edges, batch, stats, export/import, decay, purge, clear. */
@Module({
  // scope, history and maintenance are shared with retrieval and the CLI: libs modules, imported
  imports: [CqrsModule, ScopeModule, HistoryModule, MaintenanceModule],
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
    // Space/Project scope of the graph routes
    GraphScope,
    ...MAINTENANCE_PROVIDERS,
  ],
  exports: [NodeQueries],
})
export class GraphModule {}
