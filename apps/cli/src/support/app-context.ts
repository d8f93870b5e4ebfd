import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { PlatformModule } from '@strata/platform/platform.module';
import { runningService } from '@strata/platform/projections/handover-files';
import type { Clock } from '@strata/domain/time';
import { requireInstallation } from './cli-config';
import { CliError } from './cli-error';
import { CliCapability, CliContextModule } from './cli-context.module';

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
  /** the service's modules the command runs on (CliContextModule): `accounts` unless given */
  modules?: CliCapability;
}

/**
 * Runs `fn` inside an application of the service's own modules, services and storage (no
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
    const root = CliContextModule.forRoot(cfg, opts.modules ?? 'accounts', opts.clock);
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
