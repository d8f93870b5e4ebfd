import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from '@strata/platform/config/strata-config';
import { systemClock } from '@strata/domain/time';
import { startTracing } from '@strata/observability/tracing';
import { buildProjector } from './projector';
import { serveWorkerMetrics } from './worker-metrics';

/**
 * `strata` projection worker (servers mode): applies the event log to the read models and
 * indexes, resuming from its checkpoints. Run one or more; a lease lets exactly one apply at
 * a time while the others stand by. Stops cleanly on SIGTERM/SIGINT (finishes its batch,
 * gives the lease up so a standby takes over at once).
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`strata-worker: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = new Logger('Worker');
  const traces = startTracing(process.env, (line) => log.warn(line));
  // the one clock of the process: leases, checkpoints and caches keep time on it
  const projector = await buildProjector(config, systemClock);
  projector.runner.start();
  const metrics = await serveWorkerMetrics(config, projector.runner);
  log.log(metrics ? `projection worker started; metrics on port ${config.workerMetricsPort}` : 'projection worker started');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.log(`${signal}: stopping`);
    await metrics?.close();
    await projector.close();
    await traces?.shutdown().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`strata-worker: failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
