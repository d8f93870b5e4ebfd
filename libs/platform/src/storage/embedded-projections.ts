import type { Database } from 'better-sqlite3';
import { EmbeddedProjection } from '@strata/projections/projection';
import { GraphProjection } from '@strata/projections/embedded/graph.projection';
import { TextProjection } from '@strata/projections/embedded/text.projection';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { AccountsProjection } from '@strata/projections/accounts/accounts.projection';
import { GovernanceProjection } from '@strata/projections/governance/governance.projection';
import { OntologyProjection } from '@strata/projections/ontology/ontology.projection';
import { BriefsProjection } from '@strata/projections/briefs/briefs.projection';
import { AuditProjection } from '@strata/projections/governance/audit.projection';
import { McpProjection } from '@strata/projections/mcp/mcp.projection';
import { AgentsProjection } from '@strata/projections/agents/agents.projection';
import { KnowledgeHealthProjection } from '@strata/projections/knowledge-health/knowledge-health.projection';

/** Everything a projection factory may need from the embedded storage. */
export interface EmbeddedProjectionDeps {
  db: Database;
  graph: SqliteGraphStore;
  text: SqliteTextIndex;
}

/**
 * The SQLite projections, in application order (the graph first: others may read it).
 * Add a projection here; the runner checkpoints it with the rest.
 */
export const EMBEDDED_PROJECTIONS: ((deps: EmbeddedProjectionDeps) => EmbeddedProjection)[] = [
  (d) => new GraphProjection(d.graph),
  (d) => new TextProjection(d.text),
  (d) => new AccountsProjection(d.db),
  (d) => new GovernanceProjection(d.db),
  (d) => new OntologyProjection(d.db),
  (d) => new BriefsProjection(d.db),
  (d) => new AuditProjection(d.db),
  (d) => new McpProjection(d.db),
  (d) => new AgentsProjection(d.db),
  (d) => new KnowledgeHealthProjection(d.db),
];
