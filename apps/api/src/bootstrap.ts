import 'reflect-metadata';
import { DynamicModule, Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Clock } from '@strata/domain/time';
import { AppModule } from './app.module';
import { StrataConfig, loadConfig } from '@strata/platform/config/strata-config';
import { AllExceptionsFilter } from './platform/http/all-exceptions.filter';
import { configureHttp, fastifyOptions } from './platform/http/configure-http';
import { FastRoutes } from './platform/http/fast-routes';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { Readiness } from './platform/http/readiness';
import { RouteTable } from './platform/http/route-table';
import { JobRegistry } from '@strata/jobs/job-registry';
import { PlatformModule } from '@strata/platform/platform.module';
import { setupOpenApi } from './platform/http/openapi';
import { setupDashboard } from './platform/http/dashboard-pages';
import { installMetricsEndpoint } from './platform/http/metrics-endpoint';
import { JsonNestLogger, StrataMetrics, createJsonLog } from '@strata/observability';
import { installRequestLog } from './platform/http/request-log';


export interface RunningApp {
  app: NestFastifyApplication;
  url: string;
  config: StrataConfig;
  close(): Promise<void>;
}

/**
 * Builds and starts the service: listens first (answering 503 while starting), then
 * catches the projections up with the log, then serves.
 */
/** `logger`: false silences the service; a LoggerService receives every line (tests capture the log). */
export async function startApp(
  config: StrataConfig = loadConfig(),
  /** `module`: AppModule.forRoot(config) unless given (the servers-mode e2e harness binds its stores) */
  /** `clock`: the service's time (tests pass a fake one); the system clock unless given */
  /** `logStream`: the JSON log goes there instead of stdout (tests read it back) */
  opts: { logger?: boolean | LoggerService; module?: DynamicModule; clock?: Clock; logStream?: NodeJS.WritableStream } = {},
): Promise<RunningApp> {
  const adapter = new FastifyAdapter(fastifyOptions());
  // the JSON log, unless the caller silences the service or brings its own logger
  const json = opts.logger === undefined || opts.logger === true ? createJsonLog(config.logLevel, opts.logStream) : null;
  const app = await NestFactory.create<NestFastifyApplication>(opts.module ?? AppModule.forRoot(config, opts.clock), adapter, {
    logger: opts.logger === false ? false : typeof opts.logger === 'object' ? opts.logger : new JsonNestLogger(json!),
    abortOnError: false,
    bodyParser: false, // configureHttp installs our JSON parser (REFERENCE §1.1 rules)
  });
  const routes = app.get(RouteTable);
  const readiness = app.get(Readiness);
  configureHttp(app.getHttpAdapter().getInstance(), routes, readiness, app.get(DirectAuthenticator));
  if (json) installRequestLog(app.getHttpAdapter().getInstance(), json);
  installMetricsEndpoint(app.getHttpAdapter().getInstance(), app.get(StrataMetrics), config);
  app.get(FastRoutes).install(app.getHttpAdapter().getInstance(), app.get(DirectAuthenticator), routes);
  app.useGlobalFilters(new AllExceptionsFilter(routes));
  setupOpenApi(app);
  setupDashboard(app.getHttpAdapter().getInstance(), config.dashboardDir);
  app.enableShutdownHooks();
  await app.listen({ port: config.port, host: config.host });
  app.get(PlatformModule).startUp();
  // only the service recovers jobs a stop interrupted: a CLI command on the same data dir
  // (strata export) builds the same modules while the service may be running its jobs
  await app.get(JobRegistry).recover();
  readiness.ready = true;
  const addr = app.getHttpServer().address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://127.0.0.1:${port}`;
  new Logger('Strata').log(`listening on ${url} (store: ${config.store}, data: ${config.dataDir})`);
  return {
    app,
    url,
    config,
    close: async () => {
      readiness.ready = false;
      readiness.draining = true;
      await app.close();
      json?.flush();
    },
  };
}
