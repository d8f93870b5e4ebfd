import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { DynamicModule, INestApplicationContext, Provider, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ActivityStore } from '@strata/auth/activity/activity-store.port';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { SqliteActivityStore } from '@strata/auth/activity/sqlite-activity-store';
import { SqliteJobStore } from '@strata/jobs/store/sqlite-job-store';
import { sharedJobs } from '@strata/jobs/testing/shared-job-store';
import { SqliteJobQueue } from '@strata/jobs/queue/sqlite-job-queue';
import { SqliteScheduleStore } from '@strata/jobs/schedules/sqlite-schedule-store';
import { SqliteDocumentLedger } from '@strata/extraction/ledger/sqlite-document-ledger';
import type { Clock, IdGenerator } from '@strata/domain/time';
import { EventStore } from '@strata/event-store/event-store.port';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { CheckpointWatcher } from '@strata/projections/server/checkpoint-watcher';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { AppModule } from '../../../apps/api/src/app.module';
import { StrataConfig, loadConfig } from '@strata/platform/config/strata-config';
import { AllExceptionsFilter } from '../../../apps/api/src/platform/http/all-exceptions.filter';
import { configureHttp, fastifyOptions } from '../../../apps/api/src/platform/http/configure-http';
import { FastRoutes } from '../../../apps/api/src/platform/http/fast-routes';
import { Readiness } from '../../../apps/api/src/platform/http/readiness';
import { RouteTable } from '../../../apps/api/src/platform/http/route-table';
import { PlatformModule } from '@strata/platform/platform.module';
import { SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

/**
 * What several servers-mode API replicas share, in process: the event log (a SQLite event
 * store standing in for KurrentDB: same EventStore port, same conformance suite), a graph
 * read model and text index no worker writes (these tests touch accounts only), and the
 * request-activity store (the embedded adapter of the ActivityStore port, in memory).
 */
export class SharedServers {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-servers-'));
  readonly log = new SqliteEventStore(path.join(this.dir, 'log.db'), { pollIntervalMs: 25 });
  readonly readModelDb = new Database(':memory:');
  readonly graph = new SqliteGraphStore(this.readModelDb);
  readonly text = new SqliteTextIndex(this.readModelDb);
  readonly activity = new SqliteActivityStore(':memory:');
  readonly jobs = new SqliteJobStore(':memory:');

  /** one store for every replica, as MongoDB is; closed by `close()`, not by a replica stopping */
  private readonly sharedActivity: ActivityStore = {
    write: (b) => this.activity.write(b),
    recentRequests: (k, n) => this.activity.recentRequests(k, n),
    lastUsedAt: (ids) => this.activity.lastUsedAt(ids),
    requestsInPeriod: (o, p) => this.activity.requestsInPeriod(o, p),
    close: async () => undefined,
  };

  /** the SERVER_STORAGE value a replica gets (what ServerStorage.connect would return) */
  storage() {
    return {
      events: withDeliveryLatency(this.log, SUBSCRIPTION_LATENCY_MS),
      graph: this.graph,
      text: this.text,
      // a worker that is always caught up: graph writes are not under test here
      checkpoints: { lowest: async () => this.log.headPosition() },
      projections: new CheckpointWatcher(() => this.log.headPosition()),
      readWaitMs: 2000,
      activity: this.sharedActivity,
      jobs: sharedJobs(this.jobs),
      // one file shared by the replicas, each with its own handle (closed when the replica stops)
      jobQueue: (clock: Clock, ids: IdGenerator) => new SqliteJobQueue(path.join(this.dir, 'queue.db'), clock, ids),
      scheduleStore: () => new SqliteScheduleStore(path.join(this.dir, 'queue.db')),
      documentLedger: () => new SqliteDocumentLedger(path.join(this.dir, 'queue.db')),
      onApplicationShutdown: async () => undefined,
    };
  }

  async close(): Promise<void> {
    await this.activity.close();
    await this.jobs.close();
    await this.log.close();
    this.readModelDb.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * How long after its commit a subscription delivers an event. A local SQLite log wakes its
 * subscribers at once; KurrentDB's live subscriptions reach each replica over the network, so
 * a replica that answered before its own mirror caught up would be caught out here.
 */
export const SUBSCRIPTION_LATENCY_MS = 100;

/** when each append through a latency wrapper landed, per log: its last position, performance.now() */
const commitsOf = new WeakMap<EventStore, { position: number; at: number }[]>();
/** when each append through a latency wrapper still under way started, per log */
const inFlightOf = new WeakMap<EventStore, Set<number>>();

/**
 * The same log, whose subscriptions deliver each event `ms` after it was appended through it
 * (as KurrentDB's do, a little after commit). The lag is simulated on the monotonic clock,
 * whatever time the services' clocks say; events appended around it are delivered at once.
 */
export function withDeliveryLatency(log: EventStore, ms: number): EventStore {
  // shared by every wrapper of one log: a replica sees the lag of another replica's appends too
  let commits = commitsOf.get(log);
  if (!commits) commitsOf.set(log, (commits = []));
  const landed = commits;
  let inFlight = inFlightOf.get(log);
  if (!inFlight) inFlightOf.set(log, (inFlight = new Set()));
  const pending = inFlight;
  return {
    append: async (a) => {
      // a subscription may see the event before append returns: it is then one of these
      const started = performance.now();
      pending.add(started);
      try {
        const r = await log.append(a);
        landed.push({ position: r.position, at: performance.now() });
        if (landed.length > 10_000) landed.splice(0, 5_000);
        return r;
      } finally {
        pending.delete(started);
      }
    },
    readStream: (stream, from, max) => log.readStream(stream, from, max),
    streamRevision: (stream) => log.streamRevision(stream),
    readAll: (o) => log.readAll(o),
    headPosition: () => log.headPosition(),
    deleteStreams: (streams) => log.deleteStreams(streams),
    close: async () => undefined, // shared: SharedServers closes it
    subscribe: (after, handler) =>
      log.subscribe(after, async (e) => {
        const commit = landed.find((c) => c.position >= e.position);
        const at = commit ? commit.at : pending.size ? Math.min(...pending) : null;
        const wait = at !== null ? at + ms - performance.now() : 0;
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await handler(e);
      }),
  };
}

/** A servers-mode configuration whose server URLs are never dialled (SERVER_STORAGE is replaced). */
export function serversConfig(dataDir: string, extra: Partial<StrataConfig> = {}): StrataConfig {
  const cfg = loadConfig({
    STRATA_STORE: 'servers',
    STRATA_KURRENTDB_URL: 'kurrentdb://kurrentdb.invalid:2113?tls=false',
    STRATA_MONGO_URL: 'mongodb://mongo.invalid:27017',
    STRATA_MEILI_URL: 'http://meili.invalid:7700',
    STRATA_QDRANT_URL: 'http://qdrant.invalid:6333',
    STRATA_JWT_SECRET: 'servers-mode-test-secret-0123456789abcdef',
    // servers mode refuses to start without the connection-secrets key every replica shares
    STRATA_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  return { ...cfg, port: 0, host: '127.0.0.1', logLevel: 'error', dataDir, ...extra };
}

/**
 * Vectors are not under test here (another area; Qdrant and its MongoDB lease cannot run in
 * process): an index that holds nothing, so the retrieval module resolves.
 */
export const EMPTY_VECTORS: Vectors = {
  search: async () => [],
  vectorOf: async () => undefined,
  indexed: async () => new Set(),
  count: async () => 0,
  counts: async () => ({ count: 0, backlog: 0 }),
  pinned: async () => new Set(),
  upToDate: async () => new Set(),
  afterIndexed: () => undefined,
  settle: async () => undefined,
  backfillJob: async () => null,
  runBackfill: async () => undefined,
};

/**
 * The application module with SERVER_STORAGE bound to `storage` instead of connecting to
 * servers, and VECTORS to EMPTY_VECTORS. A static area module holding an overridden token is
 * imported as a dynamic module with the replacement (Nest lets dynamic providers win).
 */
export function serversModule(config: StrataConfig, storage: unknown): DynamicModule {
  const overrides = new Map<unknown, unknown>([
    [SERVER_STORAGE, storage],
    [VECTORS, EMPTY_VECTORS],
  ]);
  const root = AppModule.forRoot(config);
  root.imports = (root.imports as (DynamicModule | Type)[]).map((m) => {
    if ('module' in m) {
      m.providers = (m.providers ?? []).map((p) => {
        const token = typeof p === 'object' && 'provide' in p ? p.provide : p;
        return overrides.has(token) ? { provide: token, useValue: overrides.get(token) } : p;
      });
      return m;
    }
    const own = (Reflect.getMetadata('providers', m) ?? []) as Provider[];
    const replaced = own.filter((p) => typeof p === 'object' && 'provide' in p && overrides.has(p.provide)).map((p) => (p as { provide: unknown }).provide);
    return replaced.length ? { module: m, providers: replaced.map((t) => ({ provide: t as string, useValue: overrides.get(t) })) } : m;
  });
  return root;
}

export interface Replica {
  url: string;
  app: NestFastifyApplication;
  dataDir: string;
  close(): Promise<void>;
}

/** Starts one API replica as bootstrap.ts does (HTTP rules, fast routes, error filter, readiness), in servers mode. */
export async function startReplica(servers: SharedServers, extra: Partial<StrataConfig> = {}): Promise<Replica> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-replica-'));
  const config = serversConfig(dataDir, extra);
  const app = await NestFactory.create<NestFastifyApplication>(serversModule(config, servers.storage()), new FastifyAdapter(fastifyOptions()), {
    logger: false,
    abortOnError: false,
    bodyParser: false,
  });
  const routes = app.get(RouteTable);
  const readiness = app.get(Readiness);
  configureHttp(app.getHttpAdapter().getInstance(), routes, readiness, app.get(DirectAuthenticator));
  app.get(FastRoutes).install(app.getHttpAdapter().getInstance(), app.get(DirectAuthenticator), routes);
  app.useGlobalFilters(new AllExceptionsFilter(routes));
  await app.listen({ port: 0, host: '127.0.0.1' });
  app.get(PlatformModule).startUp();
  readiness.ready = true;
  const addr = app.getHttpServer().address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    app,
    dataDir,
    close: async () => {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A servers-mode application context (what the CLI opens), on the shared servers. */
export async function serversContext(servers: SharedServers): Promise<INestApplicationContext> {
  const dataDir = path.join(servers.dir, 'cli-data');
  return NestFactory.createApplicationContext(serversModule(serversConfig(dataDir), servers.storage()), { logger: false, abortOnError: false });
}
