import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Clock } from '@strata/domain/time';
import { LIVE_TIMERS, Timers } from '@strata/live';
import { AppModule } from '../../apps/api/src/app.module';
import { startApp } from '../../apps/api/src/bootstrap';
import { StrataConfig, loadConfig } from '@strata/platform/config/strata-config';
import { HOST_RESOLVER, HostResolver } from '@strata/mcp/client/host-resolver';
import { LLM_RETRY_WAIT, type Wait } from '@strata/ai';
import { MCP_LIMITS_OVERRIDE, McpLimits } from '@strata/mcp/connections/mcp-limits';

/** Options of `startTestApp`: any config entry, plus test-only switches. */
export type TestAppOptions = Partial<StrataConfig> & {
  /** capture every log line the service writes (all levels) into `logs` */
  captureLogs?: boolean;
  /** environment the base config is loaded from (default: none, so tests are hermetic) */
  env?: NodeJS.ProcessEnv;
  /** the service's clock: a FixedClock lets a test move time instead of waiting for it */
  clock?: Clock;
  /** run the production JSON log (level `log` unless logLevel says otherwise), its lines kept in `jsonLines` */
  jsonLog?: boolean;
  /** the timers live connections run on (ManualTimers: heartbeats and auth deadlines move when the test says) */
  liveTimers?: Timers;
  /** how outbound host names resolve (webhook recipients, MCP servers): a fake makes a name's answer independent of the machine */
  hostResolver?: HostResolver;
  /** how the model waits between retries (REFERENCE §9.6): a recorder lets a test see the back-offs without sleeping them */
  llmWait?: Wait;
  /** MCP deadlines instead of REFERENCE §15.5's (a server that stalls is given up on in milliseconds) */
  mcpLimits?: Partial<McpLimits>;
};

export interface TestApp {
  url: string;
  dataDir: string;
  config: StrataConfig;
  app: NestFastifyApplication;
  /** captured log lines (`[level] [context] message`), when `captureLogs` is set */
  logs: string[];
  /** the JSON log's lines as written, when `jsonLog` is set */
  jsonLines: string[];
  /** stops the app; removes the data dir unless `keepData` (or the caller passed its own dataDir) */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

class CapturingLogger implements LoggerService {
  constructor(private readonly lines: string[]) {}
  private push(level: string, message: unknown, rest: unknown[]) {
    const ctx = rest.length ? String(rest[rest.length - 1]) : '';
    const extra = rest.slice(0, -1).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
    const msg = typeof message === 'string' ? message : message instanceof Error ? `${message.message}\n${message.stack}` : JSON.stringify(message);
    this.lines.push(`[${level}] [${ctx}] ${msg}${extra.length ? ' ' + extra.join(' ') : ''}`);
  }
  log(message: unknown, ...rest: unknown[]) { this.push('log', message, rest); }
  error(message: unknown, ...rest: unknown[]) { this.push('error', message, rest); }
  warn(message: unknown, ...rest: unknown[]) { this.push('warn', message, rest); }
  debug(message: unknown, ...rest: unknown[]) { this.push('debug', message, rest); }
  verbose(message: unknown, ...rest: unknown[]) { this.push('verbose', message, rest); }
  fatal(message: unknown, ...rest: unknown[]) { this.push('fatal', message, rest); }
}

/**
 * Starts the real service for an e2e test: a fresh temporary data dir under os.tmpdir()
 * (unless `dataDir` is given, e.g. to restart on the same data), port 0 on 127.0.0.1, the
 * logger off (or captured). The JWT secret is generated into the data dir unless given.
 */
export async function startTestApp(overrides: TestAppOptions = {}): Promise<TestApp> {
  const { captureLogs, env, clock, jsonLog, liveTimers, hostResolver, llmWait, mcpLimits, ...cfg } = overrides;
  const ownDir = cfg.dataDir === undefined;
  const dataDir = cfg.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'strata-test-'));
  const config: StrataConfig = { ...loadConfig(env ?? {}), port: 0, host: '127.0.0.1', logLevel: captureLogs ? 'debug' : jsonLog ? 'log' : 'error', ...cfg, dataDir };
  const logs: string[] = [];
  const jsonLines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      jsonLines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const logger = captureLogs ? new CapturingLogger(logs) : jsonLog ? undefined : false;
  let module;
  if (liveTimers || hostResolver || llmWait || mcpLimits) {
    const root = AppModule.forRoot(config, clock);
    const providers = [
      ...(liveTimers ? [{ provide: LIVE_TIMERS, useValue: liveTimers }] : []),
      ...(hostResolver ? [{ provide: HOST_RESOLVER, useValue: hostResolver }] : []),
      ...(llmWait ? [{ provide: LLM_RETRY_WAIT, useValue: llmWait }] : []),
      ...(mcpLimits ? [{ provide: MCP_LIMITS_OVERRIDE, useValue: mcpLimits }] : []),
    ];
    class TestOverridesModule {}
    module = { ...root, imports: [...(root.imports ?? []), { module: TestOverridesModule, global: true, providers, exports: providers.map((p) => p.provide) }] };
  }
  const running = await startApp(config, { logger, clock, ...(module ? { module } : {}), ...(jsonLog ? { logStream } : {}) });
  let closed = false;
  return {
    url: running.url,
    dataDir,
    config,
    app: running.app,
    logs,
    jsonLines,
    close: async (opts = {}) => {
      if (closed) return;
      closed = true;
      await running.close();
      if (ownDir && !opts.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
