import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Clock } from '@strata/domain/time';
import { AppModule } from '../../../api/src/app.module';
import { StrataConfig } from '../../../api/src/platform/config/strata-config';
import { PlatformModule } from '../../../api/src/platform/platform.module';
import { runningService } from '../../../api/src/operations/projections/handover-files';
import { requireInstallation } from './cli-config';
import { CliError } from './cli-error';
import { SnapshotModule } from './snapshot-module';

export interface ContextOptions {
  /** the CLI's clock: the application's services read time from it */
  clock: Clock;
  /** the command appends events: refused while a service runs on the same embedded data dir */
  writes: boolean;
  /**
   * the command may start a new installation (admin create-owner): opening an embedded data dir
   * without an event log creates one. Every other command refuses such a dir before anything is
   * written, so a typo in --data-dir leaves no files behind.
   */
  create?: boolean;
  /**
   * `snapshot`: on the embedded default, only the modules export and import use
   * (SnapshotModule: no vector index in memory); `all` (default): the whole service.
   */
  modules?: 'all' | 'snapshot';
}

/**
 * Runs `fn` inside the service's own application (same modules, services and storage, no
 * HTTP), so the CLI applies exactly the rules the routes apply. On the embedded default the
 * projections are caught up with the log first, unless a running service keeps them.
 */
export async function withAppContext<T>(cfg: StrataConfig, opts: ContextOptions, fn: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  if (!opts.create) requireInstallation(cfg);
  const service = cfg.store === 'embedded' ? runningService(cfg.dataDir, opts.clock.now() * 1000) : null;
  if (service && opts.writes)
    throw new CliError(
      `a Strata service (pid ${service.pid}) is running on ${cfg.dataDir}: stop it first, or make this change through its HTTP API`,
    );
  let app: INestApplicationContext;
  try {
    const root = opts.modules === 'snapshot' && cfg.store === 'embedded' ? SnapshotModule.forRoot(cfg, opts.clock) : AppModule.forRoot(cfg, opts.clock);
    app = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
  } catch (err) {
    throw new CliError(`could not open the ${cfg.store} store: ${(err as Error).message}`);
  }
  try {
    if (!service) app.get(PlatformModule).startUp();
    return await fn(app);
  } finally {
    await app.close();
  }
}
