import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AccountsModule } from '../../../api/src/accounts/accounts.module';
import { GraphModule } from '../../../api/src/graph/graph.module';
import { JobsModule } from '../../../api/src/jobs/jobs.module';
import { StrataConfig } from '../../../api/src/platform/config/strata-config';
import { PlatformModule } from '../../../api/src/platform/platform.module';
import { EmbedderFactory } from '../../../api/src/retrieval/embeddings/embedder-factory';
import { EmbeddingSettings } from '../../../api/src/retrieval/embeddings/embedding-settings.service';
import type { Clock } from '@strata/domain/time';

/** The server's default embedding configuration, which export names and import compares with. */
@Module({ providers: [EmbedderFactory, EmbeddingSettings], exports: [EmbeddingSettings] })
class EmbeddingDefaultsModule {}

/**
 * The part of the service `strata export` and `strata import` need on the embedded default:
 * storage, the graph (ExportService, ImportService, the unit of work), the accounts (the
 * organization, the commit checks) and the embedding defaults. Not the retrieval area: its
 * vector index loads every organization's vectors when it opens (hundreds of MB on a large
 * installation), which an export or import of one organization never reads. The vector index
 * keeps its own checkpoint and replays what it missed from the log when the service starts.
 */
@Module({})
export class SnapshotModule {
  static forRoot(config: StrataConfig, clock: Clock): DynamicModule {
    return {
      module: SnapshotModule,
      imports: [PlatformModule.forRoot(config, clock), CqrsModule.forRoot(), JobsModule, GraphModule, AccountsModule, EmbeddingDefaultsModule],
    };
  }
}
