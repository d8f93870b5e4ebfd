import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, StrataConfig, loadConfig } from '@strata/platform/config/strata-config';
import { EVENTS_FILE, PROJECTIONS_FILE } from '@strata/platform/storage/embedded-storage';
import { CliError } from './cli-error';

/** Options every command accepts (declared once on the program). */
export interface GlobalOptions {
  dataDir?: string;
}

/**
 * The service's configuration (same environment variables), with `--data-dir` taking
 * precedence over STRATA_DATA_DIR (default ./data).
 */
export function cliConfig(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env): StrataConfig {
  try {
    const cfg = loadConfig(env);
    return opts.dataDir ? { ...cfg, dataDir: path.resolve(opts.dataDir) } : cfg;
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration error: ${err.message}`, 2);
    throw err;
  }
}

export interface EmbeddedPaths {
  dataDir: string;
  events: string;
  projections: string;
}

/** The embedded files; the event log must exist (a typo in --data-dir should not look like an empty log). */
export function embeddedPaths(cfg: StrataConfig): EmbeddedPaths {
  const events = path.join(cfg.dataDir, EVENTS_FILE);
  if (!fs.existsSync(events))
    throw new CliError(`no event log at ${events}: pass --data-dir (or set STRATA_DATA_DIR) to the service's data directory`);
  return { dataDir: cfg.dataDir, events, projections: path.join(cfg.dataDir, PROJECTIONS_FILE) };
}

/**
 * Fails unless the command works on an existing installation: on the embedded default, a data
 * dir with an event log. Called before anything is opened (opening the service's storage would
 * create a fresh installation in a mistyped --data-dir). Servers: nothing to check here.
 */
export function requireInstallation(cfg: StrataConfig): void {
  if (cfg.store === 'embedded') embeddedPaths(cfg);
}
