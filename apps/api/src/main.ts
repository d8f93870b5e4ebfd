import { startApp } from './bootstrap';
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
  await startApp(config);
}

main().catch((err) => {
  process.stderr.write(`strata: failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
