import { AliasSetData, EmbeddingConfiguredData, EventMetadata, GraphPurgedData, NodeTouchedData, RecordedEvent, SeriesPoint, Streams, recordedEvent } from '@strata/domain/events';
import {
  decideCreateEdge,
  decideCreateNode,
  decideRestoreEdge,
  decideRestoreNode,
  decideTombstoneEdge,
  decideTombstoneNode,
  decideUpdateEdge,
  decideUpdateNode,
  nodeVersionData,
  readEdgeInput,
  WriteContext,
} from '@strata/domain/graph';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { Body } from '@strata/domain/validation';

/**
 * Builds graph events the way the service does (the deciders of libs/domain/src/graph) and
 * records them as a log would: per-stream revisions and one global position sequence.
 * Tests stage operations, then hand `take()` to the read model under test.
 */
export class GraphEventLog {
  now = 1_700_000_000;
  private position: number;
  private readonly revisions = new Map<string, number>();
  private readonly nodes = new Map<string, NodeRecord>();
  private readonly edges = new Map<string, EdgeRecord>();
  private pending: RecordedEvent[] = [];
  private seq = 0;

  constructor(startPosition = 0) {
    this.position = startPosition;
  }

  /** The events recorded since the last call, in log order. */
  take(): RecordedEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  tick(secs = 1): number {
    this.now += secs;
    return this.now;
  }

  // ---------- nodes ----------
  createNode(org: string, body: Body, opts: { uid?: string; agent_id?: string | null } = {}): NodeRecord {
    const uid = opts.uid ?? this.uid('n');
    const n = decideCreateNode(body, uid, this.ctx(opts.agent_id ?? null));
    this.nodes.set(key(org, uid), n);
    this.emit(org, Streams.node(org, uid), 'NodeCreated', { node: n, reason: null }, opts.agent_id);
    return n;
  }

  updateNode(org: string, uid: string, body: Body): NodeRecord {
    const n = decideUpdateNode(this.node(org, uid), body, this.ctx(null));
    return this.putNode(org, n, 'NodeUpdated');
  }

  tombstoneNode(org: string, uid: string, reason: string | null = null): NodeRecord {
    const n = decideTombstoneNode(this.node(org, uid), reason, this.ctx(null));
    if (!n) throw new Error(`node ${uid} is already tombstoned`);
    return this.putNode(org, n, 'NodeTombstoned', reason);
  }

  restoreNode(org: string, uid: string): NodeRecord {
    const n = decideRestoreNode(this.node(org, uid), this.ctx(null));
    if (!n) throw new Error(`node ${uid} is live`);
    return this.putNode(org, n, 'NodeRestored');
  }

  /** A touch of a node the fixture does not know is still recorded (read models ignore it). */
  touchNode(org: string, data: NodeTouchedData): void {
    const n = this.nodes.get(key(org, data.uid));
    if (n)
      this.nodes.set(key(org, data.uid), {
        ...n,
        props: { ...n.props, ...(data.props ?? {}) } as NodeRecord['props'],
        salience: data.salience ?? n.salience,
        updated_at: data.updated_at ?? n.updated_at,
      });
    this.emit(org, Streams.node(org, data.uid), 'NodeTouched', data);
  }

  decay(org: string, items: { uid: string; salience: number }[]): void {
    for (const i of items) {
      const n = this.nodes.get(key(org, i.uid));
      if (n) this.nodes.set(key(org, i.uid), { ...n, salience: i.salience });
    }
    this.emit(org, Streams.graph(org), 'SalienceDecayed', { items, at: this.now });
  }

  // ---------- edges ----------
  createEdge(org: string, from: string, to: string, body: Body = { edge_type: 'RelatedTo' }, opts: { uid?: string } = {}): EdgeRecord {
    const uid = opts.uid ?? this.uid('e');
    const e = decideCreateEdge(readEdgeInput(body), this.node(org, from), this.node(org, to), uid, this.ctx(null));
    this.edges.set(key(org, uid), e);
    this.emit(org, Streams.edge(org, uid), 'EdgeCreated', { edge: e, reason: null });
    return e;
  }

  updateEdge(org: string, uid: string, body: Body): EdgeRecord {
    return this.putEdge(org, decideUpdateEdge(this.edge(org, uid), body, this.ctx(null)), 'EdgeUpdated');
  }

  tombstoneEdge(org: string, uid: string, reason: string | null = null): EdgeRecord {
    const e = decideTombstoneEdge(this.edge(org, uid), reason, this.ctx(null));
    if (!e) throw new Error(`edge ${uid} is already tombstoned`);
    return this.putEdge(org, e, 'EdgeTombstoned', reason);
  }

  restoreEdge(org: string, uid: string): EdgeRecord {
    const e = decideRestoreEdge(this.edge(org, uid), this.ctx(null));
    if (!e) throw new Error(`edge ${uid} is live`);
    return this.putEdge(org, e, 'EdgeRestored');
  }

  // ---------- organization-wide facts ----------
  setAlias(org: string, a: Omit<AliasSetData, 'created_at'> & { created_at?: number }): void {
    this.emit(org, Streams.graph(org), 'AliasSet', { ...a, created_at: a.created_at ?? this.now });
  }

  removeAlias(org: string, norm: string, canonical_uid: string): void {
    this.emit(org, Streams.graph(org), 'AliasRemoved', { norm, canonical_uid });
  }

  configureEmbeddings(org: string, c: Partial<EmbeddingConfiguredData> = {}): void {
    const data: EmbeddingConfiguredData = {
      provider: 'builtin',
      model: 'lexical-hash-v1',
      dimensions: 4,
      distance_metric: 'cosine',
      configured_at: this.now,
      dropped: false,
      ...c,
    };
    this.emit(org, Streams.graph(org), 'EmbeddingConfigured', data);
  }

  setEmbedding(org: string, uid: string, vector: number[], model = 'lexical-hash-v1'): void {
    this.emit(org, Streams.embedding(org, uid), 'EmbeddingSet', { uid, vector, model, updated_at: this.now });
  }

  deleteEmbedding(org: string, uid: string): void {
    this.emit(org, Streams.embedding(org, uid), 'EmbeddingDeleted', { uid });
  }

  appendPoints(org: string, seriesUid: string, points: Partial<SeriesPoint>[]): void {
    const full = points.map((p) => ({ ts: 0, value: 0, source_uid: null, note: null, recorded_at: this.now, ...p }));
    this.emit(org, Streams.series(org, seriesUid), 'SeriesPointsAppended', { series_uid: seriesUid, points: full });
  }

  purge(org: string, data: GraphPurgedData): void {
    for (const u of data.node_uids) this.nodes.delete(key(org, u));
    for (const u of data.edge_uids) this.edges.delete(key(org, u));
    this.emit(org, Streams.graph(org), 'GraphPurged', data);
  }

  clear(org: string): void {
    for (const m of [this.nodes, this.edges]) for (const k of [...m.keys()]) if (k.startsWith(`${org}\u0000`)) m.delete(k);
    this.emit(org, Streams.graph(org), 'GraphCleared', { at: this.now });
  }

  /** Any other event (events a graph read model must ignore). */
  other(org: string, stream: string, type: string, data: unknown): void {
    this.emit(org, stream, type, data);
  }

  // ---------- internals ----------
  node(org: string, uid: string): NodeRecord {
    const n = this.nodes.get(key(org, uid));
    if (!n) throw new Error(`fixture: no node ${uid} in ${org}`);
    return n;
  }

  edge(org: string, uid: string): EdgeRecord {
    const e = this.edges.get(key(org, uid));
    if (!e) throw new Error(`fixture: no edge ${uid} in ${org}`);
    return e;
  }

  /** Current revision of a stream, as the log would report it (-1: none). */
  revision(stream: string): number {
    return this.revisions.get(stream) ?? -1;
  }

  private putNode(org: string, n: NodeRecord, type: string, reason: string | null = null): NodeRecord {
    const before = this.nodes.get(key(org, n.uid));
    this.nodes.set(key(org, n.uid), n);
    this.emit(org, Streams.node(org, n.uid), type, nodeVersionData(before, n, reason));
    return n;
  }

  private putEdge(org: string, e: EdgeRecord, type: string, reason: string | null = null): EdgeRecord {
    this.edges.set(key(org, e.uid), e);
    this.emit(org, Streams.edge(org, e.uid), type, { edge: e, reason });
    return e;
  }

  private ctx(agent_id: string | null): WriteContext {
    return { now: this.now, agent_id, principal_id: 'user-1' };
  }

  private uid(prefix: string): string {
    return `${prefix}${String(++this.seq).padStart(4, '0')}`;
  }

  private emit(org: string, stream: string, type: string, data: unknown, agent_id: string | null = null): void {
    const revision = this.revision(stream) + 1;
    this.revisions.set(stream, revision);
    const metadata: EventMetadata = {
      org_id: org,
      principal: { kind: 'user', id: 'user-1' },
      agent_id,
      request_id: `req-${this.position + 1}`,
      occurred_at: this.now,
    };
    this.pending.push(recordedEvent({ id: `evt-${this.position + 1}`, type, data, metadata, stream, revision, position: ++this.position }));
  }
}

function key(org: string, uid: string): string {
  return `${org}\u0000${uid}`;
}
