import { FactoryProvider } from '@nestjs/common';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import { CLOCK, Clock } from '@strata/domain/time';
// type only: the server clients load only in servers mode
import type { ServerStorage } from '@strata/platform/storage/server-storage';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { EmbeddedMaintenanceStore } from './embedded-maintenance-store';
import { MAINTENANCE_STORE, MaintenanceStore } from './maintenance-store';

/** The maintenance store bound once, from STRATA_STORE. */
export const MAINTENANCE_STORE_PROVIDER: FactoryProvider<MaintenanceStore> = {
  provide: MAINTENANCE_STORE,
  inject: [EMBEDDED_STORAGE, SERVER_STORAGE, UNIT_OF_WORK, CLOCK],
  useFactory: async (embedded: EmbeddedStorage | null, servers: ServerStorage | null, uow: UnitOfWork, clock: Clock) => {
    if (embedded) return new EmbeddedMaintenanceStore(embedded, uow, clock);
    const { ServerMaintenanceStore } = await import('./server-maintenance-store');
    return new ServerMaintenanceStore(servers!);
  },
};
