import { AuditFormat, formatRecord, tableHeader } from '../audit/audit-format';
import { DomainError } from '@strata/domain/errors';
import { AuditQuery, Bound, auditMatches, listOption, parseBound, pastEnd, readAfter } from '@strata/domain/audit/audit-filter';
import { toAuditRecord } from '@strata/domain/audit/audit-record';
import { governanceAuditRecord, mapStatusMemory } from '@strata/domain/audit/governance-audit';
import { formatCount } from '../progress/progress-format';
import { CliError } from '../support/cli-error';
import { GlobalOptions, cliConfig } from '../support/cli-config';
import { logUnavailable, openEventLog, readLog } from '../support/event-log';
import { requireOrgInLog } from '../support/org-exists';
import { writeOut } from '../support/output';

export interface ReplayOptions {
  org: string;
  from?: string;
  to?: string;
  principal?: string[];
  agent?: string[];
  kind?: string[];
  format: AuditFormat;
  /** the governance records of REFERENCE §13.8 instead of one record per event */
  governance?: boolean;
}

/** A bound flag; a refusal is the operator's one line, as every other flag's. */
function flagBound(raw: string, flag: '--from' | '--to'): Bound {
  try {
    return parseBound(raw, flag);
  } catch (err) {
    throw err instanceof DomainError ? new CliError(err.message) : err;
  }
}

export function auditQuery(opts: Omit<ReplayOptions, 'format'>): AuditQuery {
  const org = opts.org.trim();
  if (!org) throw new CliError('--org must not be empty');
  const q: AuditQuery = {
    org,
    from: opts.from !== undefined ? flagBound(opts.from, '--from') : undefined,
    to: opts.to !== undefined ? flagBound(opts.to, '--to') : undefined,
    principals: listOption(opts.principal),
    agents: listOption(opts.agent),
    kinds: listOption(opts.kind),
  };
  if (q.from && q.to && 'position' in q.from && 'position' in q.to && q.from.position > q.to.position)
    throw new CliError(`--from (${q.from.position}) is after --to (${q.to.position})`);
  if (q.from && q.to && 'time' in q.from && 'time' in q.to && (q.to.before ? q.from.time >= q.to.time : q.from.time > q.to.time))
    throw new CliError('--from is later than --to');
  return q;
}

/** `strata audit replay` */
export async function auditReplay(opts: ReplayOptions, globals: GlobalOptions): Promise<void> {
  const q = auditQuery(opts);
  const cfg = cliConfig(globals);
  const log = openEventLog(cfg);
  let read = 0;
  let shown = 0;
  let header = opts.format === 'table' && !opts.governance;
  // Approval and Execution records need each node's status before the event: the same memory the projection keeps
  const statuses = mapStatusMemory();
  try {
    await requireOrgInLog(log, q.org!);
    for await (const e of readLog(log, readAfter(q))) {
      if (pastEnd(e, q)) break;
      read++;
      if (opts.governance) {
        const g = governanceAuditRecord(e, statuses);
        if (!g || !auditMatches(e, q)) continue;
        shown++;
        await writeOut(JSON.stringify(g) + '\n');
        continue;
      }
      if (!auditMatches(e, q)) continue;
      shown++;
      if (header) await writeOut(tableHeader() + '\n');
      header = false;
      await writeOut(formatRecord(toAuditRecord(e), opts.format) + '\n');
    }
    if (header) await writeOut(tableHeader() + '\n');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw logUnavailable(cfg, err);
  } finally {
    await log.close().catch(() => undefined);
  }
  process.stderr.write(`${formatCount(shown)} audit records (${formatCount(read)} events read)\n`);
}
