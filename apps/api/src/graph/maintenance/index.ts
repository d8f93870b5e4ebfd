import { ClearHandler } from './clear.handler';
import { DecayHandler } from '@strata/maintenance/decay.handler';
import { GraphStatsService } from './graph-stats.service';
import { ImportSnapshotHandler } from './import-snapshot.handler';
import { PurgeHandler } from './purge.handler';

export { MaintenanceController } from './maintenance.controller';

/** Handlers and services of the maintenance routes, for GraphModule (export, import and the store are MaintenanceModule's). */
export const MAINTENANCE_PROVIDERS = [
  // commands
  ImportSnapshotHandler,
  DecayHandler,
  PurgeHandler,
  ClearHandler,
  // services
  GraphStatsService,
];
