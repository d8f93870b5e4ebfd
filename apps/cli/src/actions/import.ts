import { INestApplicationContext } from '@nestjs/common';
import { ImportCounts, ParsedSnapshot } from '@strata/domain/maintenance';
import { Body } from '@strata/domain/validation';
import { ImportService } from '@strata/maintenance/import.service';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { Heartbeat } from '../progress/heartbeat';
import { countOf } from '../progress/progress-format';
import { ProgressReporter } from '../progress/progress-reporter';
import { CliError } from '../support/cli-error';
import { GlobalOptions, cliConfig, requireInstallation } from '../support/cli-config';
import { withAppContext } from '../support/app-context';
import { orgExists } from '../support/org-exists';
import { cliRequestId, operatorId } from '../support/operator';
import { writeOut } from '../support/output';
import { readInput } from '../support/read-input';
import type { Clock } from '@strata/domain/time';

export interface ImportOptions {
  org: string;
  input?: string;
}

/** `702 nodes, 699 edges, 1 alias, 2 series points` of a validated snapshot, for the progress line. */
export function describeSnapshot(snap: ParsedSnapshot): string {
  let points = 0;
  for (const p of snap.series.values()) points += p.length;
  const parts = [countOf(snap.nodes.length, 'node'), countOf(snap.edges.length, 'edge'), countOf(snap.aliases.length, 'alias')];
  if (snap.embeddings) parts.push(countOf(snap.embeddings.items.length, 'embedding'));
  parts.push(countOf(points, 'series point'));
  return parts.join(', ');
}

/**
 * The snapshot as parsed JSON. The input's bytes and text are dropped when this returns: the
 * import holds only what it must (REFERENCE §8.6 validates everything before writing).
 */
async function readSnapshot(opts: ImportOptions): Promise<Body> {
  const raw = await readInput(opts.input, 'snapshot', `strata import --org ${opts.org} < graph.json`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new CliError(`the snapshot is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError('the snapshot must be a JSON object (a strata.graph snapshot, as written by `strata export`)');
  return parsed as Body;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The write, with progress on stderr: a bar while the objects are staged, then (the append
 * and the projections run in one synchronous transaction, which reports nothing) a running
 * clock for writing and for committing, each closed by a line with the events and the time.
 */
async function write(app: INestApplicationContext, cfg: StrataConfig, imports: ImportService, ctx: CommandContext, parsed: ParsedSnapshot): Promise<ImportCounts> {
  const say = (line: string) => process.stderr.write(line + '\n');
  const staging = new ProgressReporter('staging', process.stderr, () => performance.now(), 'objects');
  let beat: Heartbeat | null = null;
  let staged = false;
  // monotonic: the durations are only shown
  let t1 = performance.now();
  const storage = cfg.store === 'embedded' ? app.get<EmbeddedStorage | null>(EMBEDDED_STORAGE, { strict: false }) : null;
  storage?.onApplied((events) => {
    beat?.stop();
    const first = events[0]?.position;
    const last = events[events.length - 1]?.position;
    say(`wrote ${countOf(events.length, 'event')}${first ? ` (positions ${first}–${last})` : ''} to the log and the projections in ${seconds(performance.now() - t1)}`);
    t1 = performance.now();
    beat = new Heartbeat('committing');
  });
  storage?.onCommitted(() => {
    beat?.stop();
    beat = null;
    say(`committed in ${seconds(performance.now() - t1)}`);
  });
  try {
    return await imports.importParsed(ctx, parsed, (done, total) => {
      staging.update(done, total);
      if (done < total || staged) return;
      staged = true;
      staging.finish(done, total);
      t1 = performance.now();
      beat = new Heartbeat(storage ? 'writing to the log and the projections (one transaction)' : 'appending to the log and waiting for the projections');
    });
  } finally {
    (beat as Heartbeat | null)?.stop();
  }
}

/** `strata import`: the counts of POST /import on stdout; either store (servers: appended to KurrentDB, projected by the worker). */
export async function importGraph(opts: ImportOptions, globals: GlobalOptions, clock: Clock): Promise<void> {
  const cfg = cliConfig(globals);
  requireInstallation(cfg); // before reading the snapshot: a mistyped --data-dir fails at once
  let body: Body | null = await readSnapshot(opts);
  const t0 = performance.now();
  const counts = await withAppContext(cfg, { writes: true, modules: 'snapshot', clock }, async (app) => {
    if (!(await orgExists(app, cfg, opts.org))) throw new CliError(`organization ${opts.org} not found`);
    const imports = app.get(ImportService, { strict: false });
    const parsed = imports.parse(body!);
    body = null; // the parsed JSON goes; the write needs only the validated snapshot
    process.stderr.write(`importing ${describeSnapshot(parsed)} into organization ${opts.org} (validated; one atomic write)…\n`);
    const ctx: CommandContext = {
      org: opts.org,
      principal: { kind: 'system', id: operatorId() },
      credential_id: null,
      agent_id: null,
      request_id: cliRequestId(),
    };
    return write(app, cfg, imports, ctx, parsed);
  });
  process.stderr.write(`imported into organization ${opts.org} in ${seconds(performance.now() - t0)}\n`);
  await writeOut(JSON.stringify(counts) + '\n');
}
