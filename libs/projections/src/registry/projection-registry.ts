import { GRAPH_PROJECTION, TEXT_PROJECTION } from '../embedded/graph.registration';
import { ACCOUNTS_PROJECTION } from '../accounts/accounts.registration';
import { AUDIT_PROJECTION, GOVERNANCE_PROJECTION } from '../governance/governance.registration';
import { ONTOLOGY_PROJECTION } from '../ontology/ontology.registration';
import { BRIEFS_PROJECTION } from '../briefs/briefs.registration';
import { PROJECT_SOURCES_PROJECTION } from '../briefs/project-sources.registration';
import { MCP_PROJECTION } from '../mcp/mcp.registration';
import { AGENTS_PROJECTION } from '../agents/agents.registration';
import { KNOWLEDGE_HEALTH_PROJECTION } from '../knowledge-health/knowledge-health.registration';
import type { MirroredProjectionDefinition, ProjectionDefinition } from './projection-definition';

/**
 * Every read model of the log, in application order (the graph first: others may read it).
 * Each area's lib exports its definitions (`*.registration.ts`) beside its projections; this is
 * the one place that composes them, read alike by the service (embedded storage, the
 * servers-mode mirror, through `PROJECTION_DEFINITIONS`), the rebuild hand-over and the CLI.
 * Bump a projection's `version` to rebuild it.
 */
export const PROJECTIONS: readonly ProjectionDefinition[] = [
  GRAPH_PROJECTION,
  TEXT_PROJECTION,
  ACCOUNTS_PROJECTION,
  GOVERNANCE_PROJECTION,
  ONTOLOGY_PROJECTION,
  BRIEFS_PROJECTION,
  AUDIT_PROJECTION,
  MCP_PROJECTION,
  AGENTS_PROJECTION,
  KNOWLEDGE_HEALTH_PROJECTION,
  PROJECT_SOURCES_PROJECTION,
];

/** The registry as Nest injects it (PlatformModule provides `PROJECTIONS`), so a process may keep fewer. */
export const PROJECTION_DEFINITIONS = Symbol('PROJECTION_DEFINITIONS');

/** The definitions a servers-mode replica keeps in its log mirror, in application order. */
export function mirroredProjections(all: readonly ProjectionDefinition[] = PROJECTIONS): MirroredProjectionDefinition[] {
  return all.filter((d): d is MirroredProjectionDefinition => d.servers === 'mirror');
}
