import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';

/** The SQLite adapter's prepared-statement cache, when the read model is the embedded one. */
export type FastStore = Pick<SqliteGraphStore, 'stmt'>;

/**
 * The embedded read model's statements, for reads the port has no shape for (columns without
 * parsing documents, whole sets in one statement); null on other adapters, which go through
 * the port instead.
 */
export function fastStore(g: GraphReadModel): FastStore | null {
  return typeof (g as Partial<FastStore>).stmt === 'function' ? (g as unknown as FastStore) : null;
}
