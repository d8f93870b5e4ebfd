import { GRAPH_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { TEXT_ORG_TABLE_RE, TEXT_POSTINGS_TABLE_RE } from '@strata/text-index/sqlite/sqlite-text-index';
import { ACCOUNT_TABLES } from '@strata/projections/accounts/accounts-schema';
import { GOVERNANCE_TABLES } from '@strata/projections/governance/governance-schema';
import { ONTOLOGY_TABLES } from '@strata/projections/ontology/ontology-schema';
import { BRIEFS_TABLES } from '@strata/projections/briefs/briefs-schema';
import { AGENT_TABLES } from '@strata/projections/agents/agents-schema';
import { AUDIT_TABLES } from '@strata/projections/governance/audit.projection';
import { MCP_TABLES } from '@strata/projections/mcp/mcp-schema';
import { KNOWLEDGE_HEALTH_TABLES } from '@strata/projections/knowledge-health/knowledge-health-schema';

/** A table name, or a pattern for tables made at run time (one per organization). */
export type TableClaim = string | RegExp;

/** The tables each embedded projection owns (what `projections verify` compares). */
export const PROJECTION_TABLES: Readonly<Record<string, readonly TableClaim[]>> = {
  graph: GRAPH_TABLES,
  // the catalogue, and each organization's text_docs_*, text_fts_* (text_vocab_* is a view of it), postings
  text: ['text_orgs', TEXT_ORG_TABLE_RE, TEXT_POSTINGS_TABLE_RE],
  accounts: ACCOUNT_TABLES,
  governance: GOVERNANCE_TABLES,
  ontology: ONTOLOGY_TABLES,
  briefs: BRIEFS_TABLES,
  audit: AUDIT_TABLES,
  mcp: MCP_TABLES,
  agents: AGENT_TABLES,
  knowledge_health: KNOWLEDGE_HEALTH_TABLES,
};

function claims(claim: TableClaim, table: string): boolean {
  return typeof claim === 'string' ? claim === table : claim.test(table);
}

/**
 * Tables to compare for the given projections. When every projection is verified, tables
 * nobody claims here (a projection added later) are compared too, so nothing escapes.
 */
export function tablesToVerify(names: readonly string[], allNames: readonly string[], existing: readonly string[]): string[] {
  const claimed = Object.values(PROJECTION_TABLES).flat();
  const wanted = names.flatMap((n) => PROJECTION_TABLES[n] ?? []);
  const everything = allNames.every((n) => names.includes(n));
  return existing.filter((t) => wanted.some((c) => claims(c, t)) || (everything && !claimed.some((c) => claims(c, t))));
}
