import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { EmbeddingConfig, SeriesPointRow } from '../graph-read-model.port';
import type { SnapshotAliasRow, SnapshotScope } from '../maintenance-reads.port';
import { snapshotNodeJson } from '../snapshot-node';
import { blobToVector } from './sqlite-graph-store';

/**
 * A consistent, read-only view of one organization's read model for export. It holds its own
 * connection with a read transaction open, so a long export sees one point in time while
 * writers carry on (WAL), and rows stream out without the graph ever being in memory at once.
 *
 * What is exported hangs together: edges, aliases, vectors and series points only for
 * exported nodes, so a snapshot always imports cleanly into an empty organization.
 */
export class SqliteSnapshotReader {
  private closed = false;

  private constructor(private readonly db: Db) {}

  /** Opens the projections file read-only and pins the snapshot. */
  static open(file: string): SqliteSnapshotReader {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM nodes').pluck().get(); // the first read fixes the snapshot
    return new SqliteSnapshotReader(db);
  }

  /** SQL for "node <col> is exported" */
  private nodeExported(col: string, scope: SnapshotScope): string {
    return `EXISTS (SELECT 1 FROM nodes n WHERE n.org = ? AND n.uid = ${col}${scope.include_tombstoned ? '' : ' AND n.tombstone_at IS NULL'})`;
  }
  private nodeWhere(scope: SnapshotScope): string {
    return `org = ?${scope.include_tombstoned ? '' : ' AND tombstone_at IS NULL'}`;
  }
  private edgeWhere(scope: SnapshotScope): string {
    return `e.org = ?${scope.include_tombstoned ? '' : ' AND e.tombstone_at IS NULL'} AND ${this.nodeExported('e.from_uid', scope)} AND ${this.nodeExported('e.to_uid', scope)}`;
  }

  count(what: 'nodes' | 'edges' | 'aliases' | 'embeddings' | 'series_points', org: string, scope: SnapshotScope): number {
    const count = (sql: string, ...params: unknown[]) => this.db.prepare(sql).pluck().get(...params) as number;
    switch (what) {
      case 'nodes':
        return count(`SELECT count(*) FROM nodes WHERE ${this.nodeWhere(scope)}`, org);
      case 'edges':
        return count(`SELECT count(*) FROM edges e WHERE ${this.edgeWhere(scope)}`, org, org, org);
      case 'aliases':
        return count(`SELECT count(*) FROM aliases a WHERE a.org = ? AND ${this.nodeExported('a.canonical_uid', scope)}`, org, org);
      case 'embeddings':
        return count(`SELECT count(*) FROM embeddings m WHERE m.org = ? AND ${this.nodeExported('m.uid', scope)}`, org, org);
      case 'series_points':
        return count(`SELECT count(*) FROM series_points p WHERE p.org = ? AND ${this.nodeExported('p.series_uid', scope)}`, org, org);
    }
  }

  embeddingConfig(org: string): EmbeddingConfig | null {
    return (
      (this.db.prepare('SELECT provider, model, dimensions, distance_metric, configured_at FROM embedding_config WHERE org = ?').get(org) as
        | EmbeddingConfig
        | undefined) ?? null
    );
  }

  /** Node records as stored (JSON text), each with its decay clock when it has one, oldest first. */
  *nodeDocs(org: string, scope: SnapshotScope): Generator<string> {
    const rows = this.db
      .prepare(`SELECT doc, last_decayed_at FROM nodes WHERE ${this.nodeWhere(scope)} ORDER BY created_at, uid`)
      .raw()
      .iterate(org) as IterableIterator<[doc: string, lastDecayedAt: number | null]>;
    for (const [doc, lastDecayedAt] of rows) yield snapshotNodeJson(doc, lastDecayedAt);
  }

  edgeDocs(org: string, scope: SnapshotScope): IterableIterator<string> {
    return this.db
      .prepare(`SELECT e.doc FROM edges e WHERE ${this.edgeWhere(scope)} ORDER BY e.created_at, e.uid`)
      .pluck()
      .iterate(org, org, org) as IterableIterator<string>;
  }

  aliases(org: string, scope: SnapshotScope): IterableIterator<SnapshotAliasRow> {
    return this.db
      .prepare(
        `SELECT a.text, a.canonical_uid, a.score, a.created_at FROM aliases a
         WHERE a.org = ? AND ${this.nodeExported('a.canonical_uid', scope)} ORDER BY a.canonical_uid, a.norm`,
      )
      .iterate(org, org) as IterableIterator<SnapshotAliasRow>;
  }

  *embeddings(org: string, scope: SnapshotScope): Generator<{ uid: string; vector: number[] }> {
    const rows = this.db
      .prepare(`SELECT m.uid, m.vector FROM embeddings m WHERE m.org = ? AND ${this.nodeExported('m.uid', scope)} ORDER BY m.uid`)
      .iterate(org, org) as IterableIterator<{ uid: string; vector: Buffer }>;
    for (const r of rows) yield { uid: r.uid, vector: blobToVector(r.vector) };
  }

  seriesPoints(org: string, scope: SnapshotScope): IterableIterator<SeriesPointRow> {
    return this.db
      .prepare(
        `SELECT p.series_uid, p.ts, p.value, p.source_uid, p.note, p.recorded_at FROM series_points p
         WHERE p.org = ? AND ${this.nodeExported('p.series_uid', scope)} ORDER BY p.series_uid, p.ts`,
      )
      .iterate(org, org) as IterableIterator<SeriesPointRow>;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } finally {
      this.db.close();
    }
  }
}
