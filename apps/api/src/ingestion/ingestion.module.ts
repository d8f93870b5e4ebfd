import { Module } from '@nestjs/common';
import { IngestChunkController } from './chunk/ingest-chunk.controller';
import { IngestChunkHandler } from './chunk/ingest-chunk.handler';
import { ChunkExtractionService } from './pipeline/chunk-extraction.service';
import { ExtractorSource } from './pipeline/extractor-source';
import { INGESTION_LANGUAGE_MODELS } from './pipeline/language-models.provider';

/** Ingestion (REFERENCE §9.1–9.4): chunks, documents and sessions into the graph. */
@Module({
  controllers: [IngestChunkController],
  providers: [INGESTION_LANGUAGE_MODELS, ExtractorSource, ChunkExtractionService, IngestChunkHandler],
})
export class IngestionModule {}
