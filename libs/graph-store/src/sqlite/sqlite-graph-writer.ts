import { GraphPurgedData, NodeTouchedData, RecordedEvent, SalienceDecayedData, SeriesPointsAppendedData, unhandled } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { GraphModelChange, graphChangesOf } from '../graph-changes';
import { EDGE_UPSERT, EdgeRow, NODE_UPSERT, NodeRow, edgeRow, nodeRow } from './graph-rows';
import { SqliteGraphStore, vectorToBlob } from './sqlite-graph-store';

/**
 * Executes the graph read model's changes (`graphChangesOf`, the one definition shared with
 * MongoDB) as SQLite statements. Deterministic and idempotent per event (upserts keyed by
 * uid), so replaying from any checkpoint converges to the same state.
 */
export class SqliteGraphWriter {
  constructor(private readonly store: SqliteGraphStore) {}

  apply(e: RecordedEvent): void {
    for (const c of graphChangesOf(e)) this.execute(c);
  }

  /** One change of the graph read model, as SQLite statements. */
  execute(c: GraphModelChange): void {
    const org = c.org;
    switch (c.kind) {
      case 'putNode':
        return this.putNodeRow(nodeRow(org, c.node, c.rev, c.created, c.json(), c.lastDecayedAt));
      case 'touchNode':
        return this.touchNode(org, c.data, c.rev);
      case 'putEdge':
        return this.putEdgeRow(edgeRow(org, c.edge, c.rev, c.created, c.json()));
      case 'decaySalience':
        return this.decay(org, c.data);
      case 'setAlias': {
        const a = c.alias;
        this.store
          .stmt(
            `INSERT INTO aliases(org, norm, canonical_uid, text, score, created_at) VALUES (?,?,?,?,?,?)
             ON CONFLICT(org, norm, canonical_uid) DO UPDATE SET score = excluded.score, text = excluded.text`,
          )
          .run(org, a.norm, a.canonical_uid, a.text, a.score, a.created_at);
        return;
      }
      case 'removeAlias':
        this.store.stmt('DELETE FROM aliases WHERE org = ? AND norm = ? AND canonical_uid = ?').run(org, c.norm, c.canonical_uid);
        return;
      case 'followNodeStream':
        this.store.stmt('UPDATE nodes SET rev = ? WHERE org = ? AND uid = ?').run(c.rev, org, c.uid);
        return;
      case 'configureEmbeddings': {
        const cfg = c.config;
        if (cfg.dropped) this.store.stmt('DELETE FROM embeddings WHERE org = ?').run(org);
        this.store
          .stmt(
            `INSERT INTO embedding_config(org, provider, model, dimensions, distance_metric, configured_at) VALUES (?,?,?,?,?,?)
             ON CONFLICT(org) DO UPDATE SET provider = excluded.provider, model = excluded.model, dimensions = excluded.dimensions,
             distance_metric = excluded.distance_metric, configured_at = excluded.configured_at`,
          )
          .run(org, cfg.provider, cfg.model, cfg.dimensions, cfg.distance_metric, cfg.configured_at);
        return;
      }
      case 'setEmbedding': {
        const d = c.data;
        this.store
          .stmt(
            `INSERT INTO embeddings(org, uid, model, dimension, vector, updated_at) VALUES (?,?,?,?,?,?)
             ON CONFLICT(org, uid) DO UPDATE SET model = excluded.model, dimension = excluded.dimension,
             vector = excluded.vector, updated_at = excluded.updated_at`,
          )
          .run(org, d.uid, d.model, d.vector.length, vectorToBlob(d.vector), d.updated_at);
        return;
      }
      case 'deleteEmbedding':
        this.store.stmt('DELETE FROM embeddings WHERE org = ? AND uid = ?').run(org, c.uid);
        return;
      case 'appendSeriesPoints':
        return this.appendPoints(org, c.data);
      case 'purge':
        return this.purge(org, c.data);
      case 'clear':
        for (const t of ['nodes', 'edges', 'aliases', 'embeddings', 'series_points', 'series_counts'])
          this.store.stmt(`DELETE FROM ${t} WHERE org = ?`).run(org);
        this.store.nodeDocs.forgetAll();
        return;
      case 'markMembership':
        this.store
          .stmt('INSERT INTO membership_marks(org, pos) VALUES (?,?) ON CONFLICT(org) DO UPDATE SET pos = max(pos, excluded.pos)')
          .run(org, c.pos);
        return;
      default:
        return unhandled(c);
    }
  }

  private appendPoints(org: string, d: SeriesPointsAppendedData): void {
    // a point at a timestamp the series already has replaces it; only new ones are counted
    const insert = this.store.stmt(
      `INSERT INTO series_points(org, series_uid, ts, value, source_uid, note, recorded_at) VALUES (?,?,?,?,?,?,?)
       ON CONFLICT(org, series_uid, ts) DO NOTHING`,
    );
    const replace = this.store.stmt('UPDATE series_points SET value = ?, source_uid = ?, note = ?, recorded_at = ? WHERE org = ? AND series_uid = ? AND ts = ?');
    let added = 0;
    for (const p of d.points) {
      if (insert.run(org, d.series_uid, p.ts, p.value, p.source_uid, p.note, p.recorded_at).changes === 1) added++;
      else replace.run(p.value, p.source_uid, p.note, p.recorded_at, org, d.series_uid, p.ts);
    }
    if (added > 0)
      this.store
        .stmt(
          `INSERT INTO series_counts(org, series_uid, points) VALUES (?,?,?)
           ON CONFLICT(org, series_uid) DO UPDATE SET points = points + excluded.points`,
        )
        .run(org, d.series_uid, added);
  }

  /** Writes a row built by `nodeRow` (here or on a replay's reading thread). */
  putNodeRow(row: NodeRow): void {
    this.store.stmt(NODE_UPSERT).run(row);
    this.store.nodeDocs.forget(row[1]);
  }

  private touchNode(org: string, d: NodeTouchedData, rev: number): void {
    const n = this.store.getNodeSync(org, d.uid);
    if (!n) return;
    if (d.props) n.props = { ...n.props, ...d.props } as NodeRecord['props'];
    if (d.salience !== undefined) n.salience = d.salience;
    if (d.updated_at !== undefined) n.updated_at = d.updated_at;
    this.store
      .stmt('UPDATE nodes SET salience = ?, updated_at = ?, rev = ?, doc = ? WHERE org = ? AND uid = ?')
      .run(n.salience, n.updated_at, rev, JSON.stringify(n), org, d.uid);
    this.store.nodeDocs.forget(d.uid);
  }

  private decay(org: string, d: SalienceDecayedData): void {
    const st = this.store.stmt('UPDATE nodes SET salience = ?, last_decayed_at = ?, doc = ? WHERE org = ? AND uid = ?');
    for (const item of d.items) {
      const n = this.store.getNodeSync(org, item.uid);
      if (!n) continue;
      n.salience = item.salience;
      st.run(item.salience, d.at, JSON.stringify(n), org, item.uid);
      this.store.nodeDocs.forget(item.uid);
    }
  }

  /** Writes a row built by `edgeRow`. */
  putEdgeRow(row: EdgeRow): void {
    this.store.stmt(EDGE_UPSERT).run(row);
  }

  private purge(org: string, d: GraphPurgedData): void {
    const delNode = this.store.stmt('DELETE FROM nodes WHERE org = ? AND uid = ?');
    const delAliases = this.store.stmt('DELETE FROM aliases WHERE org = ? AND canonical_uid = ?');
    const delEmb = this.store.stmt('DELETE FROM embeddings WHERE org = ? AND uid = ?');
    const delPoints = this.store.stmt('DELETE FROM series_points WHERE org = ? AND series_uid = ?');
    const delCount = this.store.stmt('DELETE FROM series_counts WHERE org = ? AND series_uid = ?');
    for (const uid of d.node_uids) {
      delNode.run(org, uid);
      this.store.nodeDocs.forget(uid);
      delAliases.run(org, uid);
      delEmb.run(org, uid);
      delPoints.run(org, uid);
      delCount.run(org, uid);
    }
    const delEdge = this.store.stmt('DELETE FROM edges WHERE org = ? AND uid = ?');
    for (const uid of d.edge_uids) delEdge.run(org, uid);
  }
}
