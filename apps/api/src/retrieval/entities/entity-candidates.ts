import { ENTITY_NODE_TYPE_NAMES, normaliseText } from '@strata/domain/catalogue';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';

export interface CandidateText {
  uid: string;
  node_type: string;
  label: string;
  created_at: number;
  /** the label itself, or one of the node's aliases */
  text: string;
  norm: string;
}

type SqlStore = Pick<SqliteGraphStore, 'stmt'>;

function sqlStore(g: GraphReadModel): SqlStore | null {
  return typeof (g as Partial<SqlStore>).stmt === 'function' ? (g as unknown as SqlStore) : null;
}

/**
 * Fuzzy-resolution candidates (REFERENCE §4.2): live nodes that have an alias, plus every
 * live node of the seven reality entity types, narrowed to `types` when given. Yields each
 * node's label and each of its aliases. The SQLite adapter answers from its columns (the
 * stored `label_norm`, no document parsing); other adapters go through the port.
 */
export async function* entityCandidateTexts(graph: GraphReadModel, org: string, types: string[] | null): AsyncGenerator<CandidateText> {
  const entityTypes = types ? ENTITY_NODE_TYPE_NAMES.filter((t) => types.includes(t)) : [...ENTITY_NODE_TYPE_NAMES];
  const typeOk = (t: string) => !types || types.includes(t);
  const sql = sqlStore(graph);
  if (sql) {
    if (entityTypes.length) {
      const rows = sql
        .stmt(
          `SELECT uid, node_type, label_norm AS norm, json_extract(doc, '$.label') AS label, created_at FROM nodes
           WHERE org = ? AND tombstone_at IS NULL AND node_type IN (${entityTypes.map(() => '?').join(',')})`,
        )
        .iterate(org, ...entityTypes) as Iterable<{ uid: string; node_type: string; norm: string; label: string; created_at: number }>;
      for (const r of rows) yield { ...r, text: r.label };
    }
    const aliasRows = sql
      .stmt(
        `SELECT a.canonical_uid AS uid, n.node_type AS node_type, a.text AS text, a.norm AS norm, n.label_norm AS label_norm,
           json_extract(n.doc, '$.label') AS label, n.created_at AS created_at
         FROM aliases a JOIN nodes n ON n.org = a.org AND n.uid = a.canonical_uid
         WHERE a.org = ? AND n.tombstone_at IS NULL ORDER BY a.canonical_uid`,
      )
      .all(org) as { uid: string; node_type: string; text: string; norm: string; label_norm: string; label: string; created_at: number }[];
    let last = '';
    for (const r of aliasRows) {
      if (!typeOk(r.node_type)) continue;
      const base = { uid: r.uid, node_type: r.node_type, label: r.label, created_at: r.created_at };
      // labels of aliased nodes outside the entity types count too
      if (r.uid !== last && !ENTITY_NODE_TYPE_NAMES.includes(r.node_type)) yield { ...base, text: r.label, norm: r.label_norm };
      last = r.uid;
      yield { ...base, text: r.text, norm: r.norm };
    }
    return;
  }
  const seen = new Set<string>();
  if (entityTypes.length) {
    const page = await graph.listNodes(org, { node_types: entityTypes }, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
    for (const n of page.items) {
      seen.add(n.uid);
      yield { uid: n.uid, node_type: n.node_type, label: n.label, created_at: n.created_at, text: n.label, norm: normaliseText(n.label) };
    }
  }
  const aliases = await graph.allAliases(org);
  const owners = await graph.getNodes(org, [...new Set(aliases.map((a) => a.canonical_uid))]);
  for (const a of aliases) {
    const n = owners.get(a.canonical_uid);
    if (!n || n.tombstone_at !== null || !typeOk(n.node_type)) continue;
    const base = { uid: n.uid, node_type: n.node_type, label: n.label, created_at: n.created_at };
    if (!seen.has(n.uid)) {
      seen.add(n.uid);
      yield { ...base, text: n.label, norm: normaliseText(n.label) };
    }
    yield { ...base, text: a.text, norm: a.norm };
  }
}
