import { startTracing } from '@strata/observability/tracing';
import { ConfigError, loadConfig } from '@strata/platform/config/strata-config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`strata: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // before the HTTP server exists: the instrumentations hook what is created after them
  const traces = startTracing(process.env, (line) => process.stderr.write(`strata: ${line}\n`));
  // imported after tracing started, for the same reason
  const { startApp } = await import('./bootstrap');
  await startApp(config);
  // flush the last batch of spans while the service drains (best effort: Nest ends the process)
  if (traces) for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void traces.shutdown().catch(() => undefined));
}

main().catch((err) => {
  process.stderr.write(`strata: failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
