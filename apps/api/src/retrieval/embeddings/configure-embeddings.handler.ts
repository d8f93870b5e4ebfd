import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainError, Errors } from '@strata/domain/errors';
import { EmbeddingConfiguredData, Streams } from '@strata/domain/events';
import { Body, present, readBoolean, readEnum, readNumber, readString } from '@strata/domain/validation';
import type { DistanceMetric } from '@strata/vector-index/vector-index.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { EffectiveEmbeddingConfig, EmbeddingProviderName, EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { EmbedderFactory } from '@strata/platform/embeddings/embedder-factory';
import { EmbeddingJobs } from './embedding-jobs.service';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

export class ConfigureEmbeddingsCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}

const METRICS: readonly DistanceMetric[] = ['cosine', 'dot', 'euclidean'];

/** What `/embeddings/configure` says about a configuration (the built-in one is named honestly). */
export function describeConfig(cfg: EffectiveEmbeddingConfig) {
  return {
    provider: cfg.provider,
    model: cfg.model,
    dimensions: cfg.dimensions,
    distance_metric: cfg.distance_metric,
    configured_at: cfg.configured_at,
    lexical: cfg.provider === 'builtin',
    note:
      cfg.provider === 'builtin'
        ? 'built-in lexical embedder: feature hashing of words and character n-grams. It matches shared words and spellings, not meaning; configure an OpenAI-compatible provider for semantic embeddings.'
        : 'OpenAI-compatible embedding provider',
  };
}

/**
 * `POST /embeddings/configure` (REFERENCE §8.7). A change of dimensions or metric while vectors
 * exist needs `force` (then every vector is dropped); re-embedding happens in the background,
 * never inside the request.
 */
@CommandHandler(ConfigureEmbeddingsCommand)
export class ConfigureEmbeddingsHandler implements ICommandHandler<ConfigureEmbeddingsCommand> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly settings: EmbeddingSettings,
    private readonly factory: EmbedderFactory,
    @Inject(VECTORS) private readonly vectors: Vectors,
    private readonly jobs: EmbeddingJobs,
  ) {}

  async execute({ ctx, body }: ConfigureEmbeddingsCommand) {
    const provider = (readEnum(body, 'provider', ['builtin', 'openai'] as const) ?? this.settings.defaultConfig()?.provider ?? 'builtin') as EmbeddingProviderName;
    if (!this.settings.providerAvailable(provider))
      throw Errors.invalidField('provider', 'the openai provider is not set up on this server (STRATA_EMBEDDING_URL); use builtin');
    const dimField = present(body, 'dimensions') ? 'dimensions' : present(body, 'dimension') ? 'dimension' : 'dimensions';
    const dimensions = readNumber(body, dimField, { required: true, integer: true, min: 1, max: 8192, label: 'dimensions' })!;
    const metricField = present(body, 'distance_metric') ? 'distance_metric' : 'metric';
    const metric = readEnum(body, metricField, METRICS, { label: 'distance_metric' }) ?? 'cosine';
    const requestedModel = readString(body, 'model', { trim: true, max: 200 });
    const force = readBoolean(body, 'force') ?? false;
    // the built-in embedder has one model; report it truthfully whatever was asked
    const model = this.factory.modelName(provider, provider === 'builtin' ? null : requestedModel ?? null);

    const before = await this.settings.effective(ctx.org);
    const count = await this.vectors.count(ctx.org);
    const spaceChanged = !before || before.dimensions !== dimensions || before.distance_metric !== metric;
    const modelChanged = !before || before.provider !== provider || before.model !== model;
    if (spaceChanged && count > 0 && !force)
      throw new DomainError(
        409,
        'embedding_config_conflict',
        `changing ${before && before.dimensions !== dimensions ? 'dimensions' : 'the distance metric'} while ${count} vectors exist drops them all; send force:true to do it`,
        { current: before ? describeConfig(before) : null, embedding_count: count },
      );
    // the same configuration again is a no-op (nothing to record, nothing to re-embed)
    if (before && before.configured_at !== null && !spaceChanged && !modelChanged)
      return { ...describeConfig(before), embeddings_dropped: 0, job_id: null };

    const data = await this.uow.run(ctx, async (tx) => {
      const d: EmbeddingConfiguredData = { provider, model, dimensions, distance_metric: metric, configured_at: tx.now, dropped: spaceChanged && count > 0 };
      tx.emit(Streams.graph(tx.org), 'EmbeddingConfigured', d);
      return d;
    });
    const cfg: EffectiveEmbeddingConfig = { provider, model, dimensions, distance_metric: metric, configured_at: data.configured_at };
    // the built-in embedder is re-applied by the vector store's backfill; others by a job
    await this.vectors.settle();
    const job =
      provider === 'builtin'
        ? await this.vectors.backfillJob(ctx.org)
        : spaceChanged || modelChanged
          ? await this.jobs.startEmbedAll(ctx.org, { reembed: true })
          : null;
    return { ...describeConfig(cfg), embeddings_dropped: data.dropped ? count : 0, job_id: job?.id ?? null };
  }
}
