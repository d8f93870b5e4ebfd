import * as fs from 'node:fs';
import { ExportService } from '@strata/maintenance/export.service';
import { countOf, formatCount } from '../progress/progress-format';
import { CliError } from '../support/cli-error';
import { GlobalOptions, cliConfig } from '../support/cli-config';
import { withAppContext } from '../support/app-context';
import { orgExists } from '../support/org-exists';
import { writeOut } from '../support/output';
import type { Clock } from '@strata/domain/time';

export interface ExportOptions {
  org: string;
  output?: string;
  includeTombstoned?: boolean;
  embeddings: boolean;
}

const SINGULAR: Record<string, string> = { nodes: 'node', edges: 'edge', aliases: 'alias', embeddings: 'embedding', series_points: 'series point' };
const COUNTS = /"counts":(\{[^}]*\})/;

/** `strata export`: the snapshot on stdout (or a file), progress on stderr; either store (servers: from MongoDB). */
export async function exportGraph(opts: ExportOptions, globals: GlobalOptions, clock: Clock): Promise<void> {
  const cfg = cliConfig(globals);
  await withAppContext(cfg, { writes: false, modules: 'snapshot', clock }, async (app) => {
    if (!(await orgExists(app, cfg, opts.org))) throw new CliError(`organization ${opts.org} not found`);
    const stream = app
      .get(ExportService, { strict: false })
      .stream(opts.org, { include_tombstoned: opts.includeTombstoned === true, include_embeddings: opts.embeddings });
    const out = opts.output ? fs.createWriteStream(opts.output) : process.stdout;
    let bytes = 0;
    let counts: string | null = null;
    // monotonic: only paces the progress lines
    let last = performance.now();
    for await (const chunk of stream) {
      const text = typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
      if (counts === null) counts = COUNTS.exec(text)?.[1] ?? '';
      bytes += Buffer.byteLength(text);
      await writeOut(text, out);
      if (performance.now() - last > 1000) {
        last = performance.now();
        process.stderr.write(`export: ${formatCount(bytes / 1024)} KiB written\n`);
      }
    }
    if (opts.output) await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())));
    else await writeOut('\n');
    const c = counts ? (JSON.parse(counts) as Record<string, number>) : {};
    const what = Object.entries(c)
      .map(([k, v]) => countOf(v, SINGULAR[k] ?? k))
      .join(', ');
    process.stderr.write(`exported organization ${opts.org}: ${what || 'snapshot'} (${formatCount(bytes / 1024)} KiB)\n`);
  });
}
