import { ClearHandler } from './clear.handler';
import { DecayHandler } from '@strata/maintenance/decay.handler';
import { ExportService } from '@strata/maintenance/export.service';
import { GraphStatsService } from './graph-stats.service';
import { ImportSnapshotHandler } from './import-snapshot.handler';
import { ImportService } from '@strata/maintenance/import.service';
import { MAINTENANCE_STORE_PROVIDER } from '@strata/maintenance/maintenance-store.provider';
import { PurgeHandler } from './purge.handler';
import { ServerEmbeddingDefault } from '@strata/maintenance/server-embedding-default';

export { MaintenanceController } from './maintenance.controller';
export { ExportService, ImportService };
export { MAINTENANCE_STORE, type MaintenanceStore } from '@strata/maintenance/maintenance-store';

/** Handlers and services of the maintenance routes, for GraphModule. */
export const MAINTENANCE_PROVIDERS = [
  // commands
  ImportSnapshotHandler,
  DecayHandler,
  PurgeHandler,
  ClearHandler,
  // services
  MAINTENANCE_STORE_PROVIDER,
  GraphStatsService,
  ExportService,
  ImportService,
  ServerEmbeddingDefault,
];
