import { Command, Option } from 'commander';
import type { ReplayOptions } from '../actions/audit-replay';
import { AUDIT_FORMATS } from '../audit/audit-format';
import type { GlobalOptions } from '../support/cli-config';

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function registerAudit(program: Command): void {
  const audit = program.command('audit').description('audit trails from the event log');
  audit
    .command('replay')
    .description("an organization's events as audit records: who (principal), with which credential, did what to which uid, when, with the request id, and the agent it is attributed to")
    .requiredOption('--org <id>', 'organization id')
    .option('--from <time|position>', 'first event: a log position or an ISO 8601 date or time, UTC unless zoned (inclusive; a date: from its midnight)')
    .option('--to <time|position>', 'last event: a log position or an ISO 8601 date or time, UTC unless zoned (inclusive; a date: the whole day)')
    .option('--principal <who>', 'only events by this principal or credential: kind:id (user:…, api_key:…, system:…), an id, or a kind; repeatable', collect)
    .option('--agent <id>', 'only events attributed to this agent (agent_id: attribution, not identity); repeatable', collect)
    .option('--kind <kind>', 'only these event types (NodeCreated, ApiKeyRevoked…) or stream categories (node, edge, org, apikey…); repeatable or comma-separated', collect)
    .addOption(new Option('--format <format>', 'output format').choices([...AUDIT_FORMATS]).default('table'))
    .option('--governance', 'only the governance audit records of GET /v1/governance/audit (policy decisions, approvals, executions, governance changes), as JSON lines with the same ids and positions')
    .addHelpText(
      'after',
      `
The log is streamed a page at a time, so a year of history needs no more memory than a day.
Identity (PRINCIPAL, VIA = the API key used) comes from the event metadata only. AGENT is the
agent_id the write is attributed to (an agent-bound key's agent, or the request's own
agent_id): attribution, which any caller may state, so --principal never matches it.

Examples:
  strata audit replay --org 7f3c… --from 2025-01-01 --to 2025-02-01
  strata audit replay --org 7f3c… --principal user:42b1… --kind NodeTombstoned,EdgeTombstoned
  strata audit replay --org 7f3c… --agent planner-7
  strata audit replay --org 7f3c… --format jsonl > audit.jsonl`,
    )
    .action(async (opts: ReplayOptions, cmd: Command) => {
      const { auditReplay } = await import('../actions/audit-replay');
      await auditReplay(opts, cmd.optsWithGlobals<GlobalOptions>());
    });
}
