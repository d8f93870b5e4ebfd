import { Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DOCUMENT_LEDGER, DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import { JobRegistry } from '@strata/jobs/job-registry';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { OPS_STORES, OpsStores } from '@strata/platform/storage/ops-stores';
import { IngestChunkController } from './chunk/ingest-chunk.controller';
import { IngestChunkHandler } from './chunk/ingest-chunk.handler';
import { CleanupChunksHandler } from './documents/cleanup-chunks.handler';
import { DeleteDocumentHandler } from './documents/delete-document.handler';
import { DocumentIntakeHandler } from './documents/document-intake.handler';
import { IngestDocumentsController } from './documents/ingest-documents.controller';
import { ResumeDocumentHandler } from './documents/resume-document.handler';
import { INGESTION_JOB_KINDS } from './jobs/ingestion-job-input';
import { IngestionJobHandler } from './jobs/ingestion-job.handler';
import { ChunkExtractionService } from './pipeline/chunk-extraction.service';
import { ExtractorSource } from './pipeline/extractor-source';
import { OntologyPass } from './pipeline/ontology-pass';
import { OntologyCoreModule } from '@strata/ontology/ontology-core.module';
import { ScopeModule } from '@strata/platform/scope/scope.module';

/** Ingestion (REFERENCE §9.1–9.4): chunks, documents and sessions into the graph. */
@Module({
  imports: [OntologyCoreModule, ScopeModule],
  controllers: [IngestChunkController, IngestDocumentsController],
  providers: [
    { provide: DOCUMENT_LEDGER, inject: [OPS_STORES], useFactory: (ops: OpsStores): DocumentLedger => ops.documentLedger() },
    ExtractorSource,
    OntologyPass,
    ChunkExtractionService,
    IngestChunkHandler,
    DocumentIntakeHandler,
    ResumeDocumentHandler,
    DeleteDocumentHandler,
    CleanupChunksHandler,
    IngestionJobHandler,
  ],
})
export class IngestionModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly runner: JobRunner,
    private readonly jobs: JobRegistry,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(DOCUMENT_LEDGER) private readonly ledger: DocumentLedger,
    private readonly handler: IngestionJobHandler,
  ) {}

  /** ingestion jobs run on the durable runner and are shown by GET /jobs */
  onModuleInit(): void {
    for (const kind of INGESTION_JOB_KINDS) {
      this.runner.register(kind, this.handler);
      this.jobs.onDurableKind(kind, { cancelledBeforeStart: (job, payload) => this.handler.cancelledBeforeStart(job, payload) });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ledger.close();
  }
}
