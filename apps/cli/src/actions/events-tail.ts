import { AuditFormat, formatRecord, tableHeader } from '../audit/audit-format';
import { toAuditRecord } from '@strata/domain/audit/audit-record';
import { CliError } from '../support/cli-error';
import { GlobalOptions, cliConfig } from '../support/cli-config';
import { logUnavailable, openEventLog } from '../support/event-log';
import { requireOrgInLog } from '../support/org-exists';

export interface TailOptions {
  org?: string;
  after?: string;
  format: AuditFormat;
}

/** `strata events tail`: runs until SIGINT/SIGTERM. */
export async function eventsTail(opts: TailOptions, globals: GlobalOptions): Promise<void> {
  const cfg = cliConfig(globals);
  let after: number | null = null;
  if (opts.after !== undefined) {
    if (!/^\d+$/.test(opts.after.trim())) throw new CliError(`--after must be a log position (a whole number), got '${opts.after}'`);
    after = Number(opts.after);
  }
  const org = opts.org?.trim();
  if (opts.org !== undefined && !org) throw new CliError('--org must not be empty');
  const log = openEventLog(cfg);
  let start: number;
  try {
    if (org) await requireOrgInLog(log, org);
    start = after ?? (await log.headPosition());
  } catch (err) {
    await log.close().catch(() => undefined);
    throw err instanceof CliError ? err : logUnavailable(cfg, err);
  }
  if (opts.format === 'table') process.stdout.write(tableHeader() + '\n');
  process.stderr.write(`following events after position ${start}${org ? ` of organization ${org}` : ''} (Ctrl-C to stop)\n`);
  let failure: unknown = null;
  await new Promise<void>((resolve) => {
    const sub = log.subscribe(start, (e) => {
      if (org && e.metadata?.org_id !== org) return;
      process.stdout.write(formatRecord(toAuditRecord(e), opts.format) + '\n');
    });
    const stop = () => void sub.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stdout.once('error', (err) => {
      failure = (err as NodeJS.ErrnoException).code === 'EPIPE' ? null : err;
      stop();
    });
  });
  await log.close();
  if (failure) throw failure;
}
