import { ClearHandler } from './clear.handler';
import { DecayHandler } from './decay.handler';
import { ExportService } from './export.service';
import { GraphStatsService } from './graph-stats.service';
import { ImportSnapshotHandler } from './import-snapshot.handler';
import { ImportService } from './import.service';
import { MAINTENANCE_STORE_PROVIDER } from './maintenance-store.provider';
import { PurgeHandler } from './purge.handler';
import { ServerEmbeddingDefault } from './server-embedding-default';

export { MaintenanceController } from './maintenance.controller';
export { ExportService, ImportService };
export { MAINTENANCE_STORE, type MaintenanceStore } from './maintenance-store';

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
