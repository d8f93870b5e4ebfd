import { GRAPH_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { ACCOUNT_TABLES } from '../../accounts/read-model/accounts-schema';

/** The tables each embedded projection owns (what `projections verify` compares). */
export const PROJECTION_TABLES: Readonly<Record<string, readonly string[]>> = {
  graph: GRAPH_TABLES,
  text: ['text_docs', 'text_fts'],
  accounts: ACCOUNT_TABLES,
};

/**
 * Tables to compare for the given projections. When every projection is verified, tables
 * nobody claims here (a projection added later) are compared too, so nothing escapes.
 */
export function tablesToVerify(names: readonly string[], allNames: readonly string[], existing: readonly string[]): string[] {
  const claimed = new Set(Object.values(PROJECTION_TABLES).flat());
  const out = new Set(names.flatMap((n) => PROJECTION_TABLES[n] ?? []));
  if (allNames.every((n) => names.includes(n))) for (const t of existing) if (!claimed.has(t)) out.add(t);
  return existing.filter((t) => out.has(t));
}
