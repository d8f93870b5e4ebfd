import { Body } from '@strata/domain/validation';
import { ImportService } from '../../../api/src/graph/maintenance/import.service';
import { CommandContext } from '../../../api/src/platform/unit-of-work/command-context';
import { countOf } from '../progress/progress-format';
import { CliError } from '../support/cli-error';
import { GlobalOptions, cliConfig, requireInstallation } from '../support/cli-config';
import { withAppContext } from '../support/app-context';
import { orgExists } from '../support/org-exists';
import { cliRequestId, operatorId } from '../support/operator';
import { writeOut } from '../support/output';
import { readInput } from '../support/read-input';

export interface ImportOptions {
  org: string;
  input?: string;
}

const SINGULAR: Record<string, string> = { nodes: 'node', edges: 'edge', aliases: 'alias', series_points: 'series point' };

/** `702 nodes, 699 edges` from a snapshot's arrays, for the progress line. */
function describeSnapshot(body: unknown): string {
  const b = (body ?? {}) as Record<string, unknown>;
  const parts = Object.entries(SINGULAR)
    .filter(([k]) => Array.isArray(b[k]))
    .map(([k, one]) => countOf((b[k] as unknown[]).length, one));
  return parts.join(', ') || 'the snapshot';
}

/** `strata import`: the counts of POST /import on stdout; either store (servers: appended to KurrentDB, projected by the worker). */
export async function importGraph(opts: ImportOptions, globals: GlobalOptions): Promise<void> {
  const cfg = cliConfig(globals);
  requireInstallation(cfg); // before reading the snapshot: a mistyped --data-dir fails at once
  const raw = await readInput(opts.input, 'snapshot', `strata import --org ${opts.org} < graph.json`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new CliError(`the snapshot is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError('the snapshot must be a JSON object (a strata.graph snapshot, as written by `strata export`)');
  const body = parsed as Body;
  const counts = await withAppContext(cfg, { writes: true }, async (app) => {
    if (!(await orgExists(app, cfg, opts.org))) throw new CliError(`organization ${opts.org} not found`);
    process.stderr.write(`importing ${describeSnapshot(body)} into organization ${opts.org} (one atomic write)…\n`);
    const ctx: CommandContext = {
      org: opts.org,
      principal: { kind: 'system', id: operatorId() },
      credential_id: null,
      agent_id: null,
      request_id: cliRequestId(),
    };
    return app.get(ImportService, { strict: false }).importSnapshot(ctx, body);
  });
  await writeOut(JSON.stringify(counts) + '\n');
}
