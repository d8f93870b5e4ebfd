import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown, Provider } from '@nestjs/common';
import { CLOCK, Clock, ClockIds, ID_GENERATOR, IdGenerator, systemClock } from '@strata/domain/time';
import { EVENT_STORE } from '@strata/event-store/event-store.port';
import { GRAPH_READ_MODEL } from '@strata/graph-store/graph-read-model.port';
import { TEXT_INDEX } from '@strata/text-index/text-index.port';
import { STRATA_CONFIG, StrataConfig, loadConfig } from './config/strata-config';
import { EmbeddedStorage } from './storage/embedded-storage';
import type { ProjectionDefinition } from '@strata/projections/registry/projection-definition';
import { PROJECTIONS, PROJECTION_DEFINITIONS } from '@strata/projections/registry/projection-registry';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from './storage/storage.tokens';
import { OPS_STORES, OpsStores } from './storage/ops-stores';
import { EmbeddedUnitOfWork } from './unit-of-work/embedded-unit-of-work';
import { UNIT_OF_WORK } from './unit-of-work/unit-of-work.port';
import { HttpAdapterHost } from '@nestjs/core';
import { registerReadLagHeader } from './unit-of-work/read-lag';
// types and a token only: the server clients (KurrentDB, MongoDB, Meilisearch) load only in servers mode
import { SERVER_STORES_CONNECT, ServerStores, ServerStoresConnect } from './storage/server-stores';
import { ServerUnitOfWork } from './unit-of-work/server-unit-of-work';
import { StrataMetrics } from '@strata/observability';
import { NodeReadViews } from './read-views/node-read-views';
import { instrumentStorage } from './metrics/storage-metrics';
import { instrumentLanguageModels } from './metrics/instrumented-chat-model';
import { LANGUAGE_MODELS, LLM_RETRY_WAIT, type Wait, languageModelsFor } from '@strata/ai';

/**
 * Configuration, clock and ids, and the storage ports bound to their adapters — chosen once,
 * here, from STRATA_STORE. What every process needs (the API, the CLI's application context);
 * the HTTP server's own pieces are HttpPlatformModule's, in apps/api.
 */
const PROVIDERS: Provider[] = [
  NodeReadViews,
    // ids are built on the clock, so a test that fixes the clock fixes the time in graph uids
    { provide: ID_GENERATOR, inject: [CLOCK], useFactory: (clock: Clock) => new ClockIds(clock) },
    // every read model of the log, composed once in libs (the CLI and the rebuild read the same list)
    { provide: PROJECTION_DEFINITIONS, useValue: PROJECTIONS },
    {
      provide: EMBEDDED_STORAGE,
      inject: [STRATA_CONFIG, CLOCK, PROJECTION_DEFINITIONS],
      // null in servers mode: the stores below come from SERVER_STORAGE instead
      useFactory: (cfg: StrataConfig, clock: Clock, projections: readonly ProjectionDefinition[]) =>
        cfg.store === 'embedded' ? new EmbeddedStorage(cfg.dataDir, { projectionsSync: cfg.projectionsSync, textPostings: cfg.textPostings, textListsMb: cfg.textListsMb, clock, projections }) : null,
    },
    {
      provide: SERVER_STORES_CONNECT,
      useValue: (async (cfg, clock) => (await import('./storage/server-storage')).ServerStorage.connect(cfg, clock)) satisfies ServerStoresConnect,
    },
    {
      provide: SERVER_STORAGE,
      inject: [STRATA_CONFIG, HttpAdapterHost, SERVER_STORES_CONNECT, CLOCK],
      useFactory: async (cfg: StrataConfig, http: HttpAdapterHost, connect: ServerStoresConnect, clock: Clock) => {
        if (cfg.store !== 'servers') return null;
        // an application context (the CLI) has no HTTP server to decorate
        if (http?.httpAdapter) registerReadLagHeader(http.httpAdapter.getInstance());
        return connect(cfg, clock);
      },
    },
    {
      provide: OPS_STORES,
      inject: [STRATA_CONFIG, SERVER_STORAGE, CLOCK, ID_GENERATOR],
      useFactory: (cfg: StrataConfig, s: ServerStores | null, clock: Clock, ids: IdGenerator) => new OpsStores(cfg, s, clock, ids),
    },
    { provide: EVENT_STORE, inject: [EMBEDDED_STORAGE, SERVER_STORAGE], useFactory: (e: EmbeddedStorage | null, s: ServerStores | null) => (e ? e.events : s!.events) },
    { provide: GRAPH_READ_MODEL, inject: [EMBEDDED_STORAGE, SERVER_STORAGE], useFactory: (e: EmbeddedStorage | null, s: ServerStores | null) => (e ? e.graph : s!.graph) },
    { provide: TEXT_INDEX, inject: [EMBEDDED_STORAGE, SERVER_STORAGE], useFactory: (e: EmbeddedStorage | null, s: ServerStores | null) => (e ? e.text : s!.text) },
    {
      provide: UNIT_OF_WORK,
      inject: [EMBEDDED_STORAGE, SERVER_STORAGE, CLOCK, ID_GENERATOR],
      useFactory: (e: EmbeddedStorage | null, s: ServerStores | null, clock: Clock, ids: IdGenerator) =>
        e ? new EmbeddedUnitOfWork(e, clock, ids) : new ServerUnitOfWork(s!.events, s!.graph, s!.projections, clock, ids, s!.readWaitMs),
    },
    {
      // one registry per process (the CLI builds it too, and never serves it)
      provide: StrataMetrics,
      inject: [STRATA_CONFIG, EMBEDDED_STORAGE, SERVER_STORAGE],
      useFactory: (cfg: StrataConfig, e: EmbeddedStorage | null, s: ServerStores | null) => {
        const metrics = new StrataMetrics({ perOrg: cfg.metricsPerOrg });
        instrumentStorage(metrics, e, s);
        return metrics;
      },
    },
    {
      // the one server-wide language model (STRATA_LLM_*); retry notices never hold the key or the prompt
      provide: LANGUAGE_MODELS,
      inject: [STRATA_CONFIG, CLOCK, StrataMetrics, { token: LLM_RETRY_WAIT, optional: true }],
      useFactory: (cfg: StrataConfig, clock: Clock, metrics: StrataMetrics, wait: Wait | undefined) => {
        const log = new Logger('LanguageModel');
        return instrumentLanguageModels(languageModelsFor(cfg.llm, { clock, log: (line) => log.warn(line), ...(wait ? { wait } : {}) }), metrics);
      },
    },
];
const EXPORTS = [STRATA_CONFIG, CLOCK, ID_GENERATOR, PROJECTION_DEFINITIONS, EMBEDDED_STORAGE, SERVER_STORAGE, OPS_STORES, EVENT_STORE, GRAPH_READ_MODEL, TEXT_INDEX, UNIT_OF_WORK, StrataMetrics, LANGUAGE_MODELS, NodeReadViews];

@Global()
@Module({})
export class PlatformModule implements OnApplicationShutdown {
  /**
   * `config` comes from the environment in production and from the test in e2e runs; so does
   * `clock` (a test's fake clock reaches every service, token and id through CLOCK).
   */
  static forRoot(config: StrataConfig = loadConfig(), clock: Clock = systemClock): DynamicModule {
    return {
      module: PlatformModule,
      providers: [{ provide: STRATA_CONFIG, useValue: config }, { provide: CLOCK, useValue: clock }, ...PROVIDERS],
      exports: EXPORTS,
    };
  }

  private readonly log = new Logger('Storage');
  constructor(@Inject(EMBEDDED_STORAGE) private readonly storage: EmbeddedStorage | null) {}

  /** Replays the log into the projections; the HTTP server answers 503 until this is done. */
  startUp(): void {
    if (!this.storage) return; // servers mode: the projection worker keeps the read models
    const t0 = performance.now();
    this.storage.runner.catchUp(
      (done, head) => this.log.log(`projections catching up: ${done}/${head}`),
      undefined,
      (name, checkpoint, head) =>
        this.log.warn(`projection ${name} is at position ${checkpoint}, past the event log's head ${head} (a log older than its projections?): rebuilding it from the log`),
    );
    this.storage.notifyCaughtUp();
    this.log.log(`projections ready at position ${this.storage.runner.appliedPosition} (${Math.round(performance.now() - t0)} ms)`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.storage?.close();
  }
}
