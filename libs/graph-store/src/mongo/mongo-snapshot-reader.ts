import { ClientSession, Document } from 'mongodb';
import type { EmbeddingConfig, SeriesPointRow } from '../graph-read-model.port';
import type { SnapshotAliasRow, SnapshotScope, SnapshotSection, SnapshotSource } from '../maintenance-reads.port';
import { embeddingConfigFromDocument, seriesPointFromDocument, vectorFromBinary } from './mongo-documents';
import { MongoGraphStore } from './mongo-graph-store';
import { sectionPipeline, snapshotNodeFromDocument } from './mongo-maintenance-queries';

/**
 * An export's view of the MongoDB read model: every read goes through one snapshot session,
 * so the whole export sees a single point in time while the projection worker carries on,
 * and rows stream from cursors (the graph is never in memory at once). MongoDB keeps a
 * snapshot for `minSnapshotHistoryWindowInSeconds` (300 s by default): a longer export fails
 * with SnapshotTooOld rather than mixing two points in time.
 */
export class MongoSnapshotReader implements SnapshotSource {
  private closed = false;

  private constructor(
    private readonly store: MongoGraphStore,
    private readonly session: ClientSession,
  ) {}

  static open(store: MongoGraphStore): MongoSnapshotReader {
    return new MongoSnapshotReader(store, store.db.client.startSession({ snapshot: true }));
  }

  async count(what: SnapshotSection, org: string, scope: SnapshotScope): Promise<number> {
    const p = sectionPipeline(what, org, scope);
    const [row] = await this.store.collection(p.collection).aggregate(p.count, { session: this.session, allowDiskUse: true }).toArray();
    return (row?.n as number | undefined) ?? 0;
  }

  async embeddingConfig(org: string): Promise<EmbeddingConfig | null> {
    const d = await this.store.collection('embeddingConfig').findOne({ org }, { session: this.session });
    return d ? embeddingConfigFromDocument(d) : null;
  }

  async *nodeDocs(org: string, scope: SnapshotScope): AsyncGenerator<string> {
    for await (const d of this.rows('nodes', org, scope)) yield snapshotNodeFromDocument(d);
  }

  async *edgeDocs(org: string, scope: SnapshotScope): AsyncGenerator<string> {
    for await (const d of this.rows('edges', org, scope)) yield JSON.stringify(d.doc);
  }

  async *aliases(org: string, scope: SnapshotScope): AsyncGenerator<SnapshotAliasRow> {
    for await (const d of this.rows('aliases', org, scope)) yield { text: d.text, canonical_uid: d.canonical_uid, score: d.score, created_at: d.created_at };
  }

  async *embeddings(org: string, scope: SnapshotScope): AsyncGenerator<{ uid: string; vector: number[] }> {
    for await (const d of this.rows('embeddings', org, scope)) yield { uid: d.uid, vector: vectorFromBinary(d.vector) };
  }

  async *seriesPoints(org: string, scope: SnapshotScope): AsyncGenerator<SeriesPointRow> {
    for await (const d of this.rows('series_points', org, scope)) yield seriesPointFromDocument(d);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.session.endSession();
  }

  private rows(what: SnapshotSection, org: string, scope: SnapshotScope): AsyncIterable<Document> {
    const p = sectionPipeline(what, org, scope);
    return this.store.collection(p.collection).aggregate(p.rows, { session: this.session, allowDiskUse: true, batchSize: 1000 });
  }
}
