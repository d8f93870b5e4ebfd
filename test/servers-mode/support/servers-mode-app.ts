import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { RunnerLogger, ServerProjectionRunner } from '@strata/projections/server/server-projection-runner';
import { AppModule } from '../../../apps/api/src/app.module';
import { startApp } from '../../../apps/api/src/bootstrap';
import { StrataConfig, loadConfig } from '@strata/platform/config/strata-config';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { SERVER_STORES_CONNECT, ServerStoresConnect } from '@strata/platform/storage/server-stores';
import { assembleProjector } from '../../../apps/worker/src/projector';
import { serversConfig } from '../../accounts/support/servers-replica';
import { EmbeddedServers } from './embedded-servers';
import type { Clock, FixedClock } from '@strata/domain/time';

/**
 * The application module with SERVER_STORES_CONNECT bound to `connect`: everything else,
 * SERVER_STORAGE's own factory included (it installs the read-lag header), is production's.
 */
export function serversModeModule(config: StrataConfig, connect: ServerStoresConnect, clock: Clock): DynamicModule {
  const root = AppModule.forRoot(config, clock);
  for (const m of root.imports as DynamicModule[]) {
    if (!('module' in m) || !m.providers?.some((p) => typeof p === 'object' && 'provide' in p && p.provide === SERVER_STORES_CONNECT)) continue;
    m.providers = m.providers.map((p) => (typeof p === 'object' && 'provide' in p && p.provide === SERVER_STORES_CONNECT ? { provide: SERVER_STORES_CONNECT, useValue: connect } : p));
    return root;
  }
  throw new Error('no SERVER_STORES_CONNECT provider in the application module');
}

export interface Replica {
  url: string;
  app: NestFastifyApplication;
  close(): Promise<void>;
}

/** One API replica in servers mode, started by the production bootstrap (startApp) on the embedded servers. */
export async function startReplica(servers: EmbeddedServers, extra: Partial<StrataConfig> = {}): Promise<Replica> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-servers-replica-'));
  const config = serversConfig(dataDir, { readWaitMs: 1000, ...extra });
  const running = await startApp(config, { logger: false, module: serversModeModule(config, async (cfg) => servers.apiStores(cfg.readWaitMs), servers.clock) });
  return {
    url: running.url,
    app: running.app,
    close: async () => {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Short lease terms, so a standby notices a released lease within a test's patience (it asks
 * again every third of them). The stack runs on a FixedClock: a lease runs out only when a
 * test moves the clock past it, never while a test waits.
 */
export const WORKER_LEASE_TTL_MS = 1500;

export interface Worker {
  readonly owner: string;
  readonly runner: ServerProjectionRunner;
  /** what the runner logged as warnings and errors */
  readonly problems: string[];
  /** what the runner logged at log level */
  readonly logs: string[];
  stop(): Promise<void>;
}

/** One projection worker (apps/worker's projections, assembled as buildProjector does), started. */
export function startWorker(servers: EmbeddedServers, owner: string, extra: Partial<StrataConfig> = {}, leaseTtlMs = WORKER_LEASE_TTL_MS): Worker {
  const problems: string[] = [];
  const logs: string[] = [];
  const logger: RunnerLogger = { log: (m) => logs.push(m), warn: (m) => problems.push(`warn: ${m}`), error: (m) => problems.push(`error: ${m}`) };
  const config = serversConfig(path.join(servers.dir, `worker-${owner}`), extra);
  const runner = assembleProjector(config, servers.projectorStores(), servers.clock, { owner, leaseTtlMs, retryDelayMs: 100, logger });
  runner.start();
  return { owner, runner, problems, logs, stop: () => runner.stop() };
}

/**
 * Stand-in servers, one projection worker and one API replica for the enclosing describe
 * block, started before its tests and stopped after them. Read the fields inside tests.
 */
/** `leaseTtlMs`: the worker's lease terms; long for tests that move the clock by seconds (the lease would run out) */
export function useServersStack(opts: { leaseTtlMs?: number } = {}): { readonly servers: EmbeddedServers; readonly worker: Worker; readonly replica: Replica } {
  const stack = {} as { servers: EmbeddedServers; worker: Worker; replica: Replica };
  beforeAll(async () => {
    stack.servers = new EmbeddedServers();
    stack.worker = startWorker(stack.servers, 'w1', {}, opts.leaseTtlMs);
    stack.replica = await startReplica(stack.servers);
  });
  afterAll(async () => {
    await stack.replica?.close();
    await stack.worker?.stop();
    await stack.servers?.close();
  });
  return stack;
}

/** Two API replicas and a projection worker over the same stand-in servers, with a scripted model. */
export interface ModelReplicaPair {
  servers: EmbeddedServers;
  worker: Worker;
  a: Replica;
  b: Replica;
  llm: ScriptedOpenAIChatServer;
  llmConfig: StrataConfig['llm'];
  close(): Promise<void>;
}

/** `clock`: the servers' clock (the replicas and worker share it); `leaseTtlMs` as for startWorker; `extra`: both replicas' configuration. */
export async function startModelReplicaPair(opts: { clock?: FixedClock; leaseTtlMs?: number; extra?: Partial<StrataConfig> } = {}): Promise<ModelReplicaPair> {
  const llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
  const llmConfig = loadConfig({ STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' }).llm;
  const servers = new EmbeddedServers(undefined, opts.clock);
  const worker = startWorker(servers, 'w1', {}, opts.leaseTtlMs);
  const a = await startReplica(servers, { llm: llmConfig, ...opts.extra });
  const b = await startReplica(servers, { llm: llmConfig, ...opts.extra });
  return {
    servers,
    worker,
    a,
    b,
    llm,
    llmConfig,
    async close() {
      await a.close();
      await b.close();
      await worker.stop();
      await servers.close();
      await llm.close();
    },
  };
}
