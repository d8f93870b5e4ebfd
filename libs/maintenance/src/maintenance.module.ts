import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '@strata/platform/embeddings/embeddings.module';
import { ExportService } from './export.service';
import { ImportService } from './import.service';
import { MAINTENANCE_STORE } from './maintenance-store';
import { MAINTENANCE_STORE_PROVIDER } from './maintenance-store.provider';
import { ServerEmbeddingDefault } from './server-embedding-default';

/**
 * Export, import and the maintenance store (bulk reads, purge, compaction) bound to the
 * configured storage: what the maintenance routes, /evolve's decay and the CLI's export and
 * import share.
 */
@Module({
  imports: [EmbeddingsModule],
  providers: [MAINTENANCE_STORE_PROVIDER, ExportService, ImportService, ServerEmbeddingDefault],
  exports: [MAINTENANCE_STORE, ExportService, ImportService, ServerEmbeddingDefault],
})
export class MaintenanceModule {}
