import { Module } from '@nestjs/common';
import { EmbedderFactory } from './embedder-factory';
import { EmbeddingSettings } from './embedding-settings.service';

/**
 * Which embedding configuration applies to an organization, and its embedder. One instance
 * per application (it caches embedders): retrieval, maintenance and the CLI import this
 * module rather than providing their own.
 */
@Module({
  providers: [EmbedderFactory, EmbeddingSettings],
  exports: [EmbedderFactory, EmbeddingSettings],
})
export class EmbeddingsModule {}
