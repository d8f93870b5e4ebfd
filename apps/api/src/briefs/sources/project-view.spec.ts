import Database from 'better-sqlite3';
import { GeneratedItem, ItemWork, ProjectSources, sourceFingerprint, structuralCandidates } from '@strata/domain/briefs';
import { EventMetadata, RecordedEvent, eventFromLog } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { ProjectSourcesProjection } from '@strata/projections/briefs/project-sources.projection';
import { ProjectSourcesReadModel } from '@strata/projections/briefs/project-sources-read-model';
import { MissingRecords, ProjectView } from './project-view';

const ORG = 'o1';
const P = 'proj';
const meta: EventMetadata = { org_id: ORG, principal: { kind: 'system', id: 'system' }, request_id: 'r', occurred_at: 1 };

/** A small graph written as the ingestion pipeline writes it, event by event into the projection. */
class World {
  readonly db = new Database(':memory:');
  readonly projection = new ProjectSourcesProjection(this.db);
  readonly model = new ProjectSourcesReadModel(this.db);
  readonly nodes = new Map<string, NodeRecord>();
  readonly edges = new Map<string, EdgeRecord>();
  private position = 0;
  private clock = 1000;

  private emit(type: string, data: unknown): void {
    const e = eventFromLog(type as never, data as never);
    this.projection.apply({ ...e, metadata: meta, id: `e${this.position}`, stream: 'x', revision: 0, position: ++this.position } as RecordedEvent);
  }

  node(uid: string, node_type: string, label: string, props: Record<string, unknown> = {}, confidence = 0.5): NodeRecord {
    const n: NodeRecord = {
      uid, label, summary: '', node_type, layer: 'epistemic', confidence, salience: 0.5, privacy_level: 'shared', props: { _type: node_type, ...props },
      agent_id: null, created_at: this.clock++, updated_at: this.clock, tombstone_at: null, tombstone_reason: null, tombstone_by: null, version: 1,
    };
    this.nodes.set(uid, n);
    this.emit('NodeCreated', { node: n, reason: null });
    return n;
  }

  edge(uid: string, edge_type: string, from_uid: string, to_uid: string, props: Record<string, unknown> = {}): EdgeRecord {
    const e: EdgeRecord = {
      uid, from_uid, to_uid, edge_type, layer: 'epistemic', weight: 1, confidence: 1, props: { _type: edge_type, ...props }, agent_id: null, version: 1,
      created_at: this.clock++, updated_at: this.clock, tombstone_at: null, tombstone_reason: null,
    };
    this.edges.set(uid, e);
    this.emit('EdgeCreated', { edge: e, reason: null });
    return e;
  }

  updateNode(uid: string, change: Partial<NodeRecord>): void {
    const n = { ...this.nodes.get(uid)!, ...change, version: this.nodes.get(uid)!.version + 1, updated_at: this.clock++ };
    this.nodes.set(uid, n);
    this.emit(n.tombstone_at !== null && change.tombstone_at !== undefined ? 'NodeTombstoned' : 'NodeUpdated', { node: n, reason: null });
  }

  touchNode(uid: string, props: Record<string, unknown>): void {
    const n = this.nodes.get(uid)!;
    this.nodes.set(uid, { ...n, props: { ...n.props, ...props } });
    this.emit('NodeTouched', { uid, props });
  }

  updateEdge(uid: string, change: Partial<EdgeRecord>): void {
    const e = { ...this.edges.get(uid)!, ...change, version: this.edges.get(uid)!.version + 1, updated_at: this.clock++ };
    this.edges.set(uid, e);
    this.emit(change.tombstone_at ? 'EdgeTombstoned' : change.tombstone_at === null ? 'EdgeRestored' : 'EdgeUpdated', { edge: e, reason: null });
  }

  /** A document with chunks, each with extracted Claims, a Question and a Hypothesis, and Supports/Contradicts among them. */
  document(d: string, chunks: number, project = P): void {
    this.node(d, 'Document', `Report ${d}`, { title: `Report ${d}` });
    this.edge(`${d}-part`, 'PartOfProject', d, project);
    for (let c = 0; c < chunks; c++) {
      const cu = `${d}c${c}`;
      const texts = [`Claim one of ${cu}`, `Claim two of ${cu}`, `Why is ${cu}?`, `Maybe ${cu}`];
      const content = `Intro. ${texts.join('. ')}. Outro ✓.`;
      this.node(cu, 'Chunk', `${d} chunk ${c}`, { content, chunk_index: c, char_offset_start: c * 100 });
      this.edge(`${cu}-of`, 'ChunkOf', cu, d);
      const kinds: [string, Record<string, unknown>][] = [
        ['Claim', { content: texts[0] }],
        ['Claim', { content: texts[1] }],
        ['Question', { text: texts[2], importance: (c % 3) / 3 }],
        ['Hypothesis', { statement: texts[3], status: c % 2 ? 'proposed' : 'confirmed' }],
      ];
      kinds.forEach(([type, props], i) => {
        const u = `${cu}n${i}`;
        this.node(u, type, texts[i], props, 0.4 + ((c * 7 + i * 3) % 6) / 10);
        const at = Buffer.byteLength(content.slice(0, content.indexOf(texts[i])));
        this.edge(`${u}-x`, 'ExtractedFrom', u, cu, { location: JSON.stringify({ exact: texts[i], start: at, end: at + Buffer.byteLength(texts[i]) }) });
      });
      this.edge(`${cu}-sup`, 'Supports', `${cu}n1`, `${cu}n0`);
      if (c % 2 === 0) this.edge(`${cu}-con`, 'Contradicts', `${cu}n3`, `${cu}n0`);
      if (c > 0) this.edge(`${cu}-sup-prev`, 'Supports', `${cu}n0`, `${d}c${c - 1}n0`);
    }
  }

  /** Loads every record a view names (what the service reads from the graph). */
  fill(v: ProjectView): void {
    const s = v.sources;
    for (const u of [...s.documents.keys(), ...s.chunks.keys(), ...s.nodes.keys()]) v.records.set(u, this.nodes.get(u)!);
  }
}

const work = (): ItemWork => {
  const m = new Map<string, unknown>();
  return { get: <T>(k: string, make: () => T) => (m.has(k) ? (m.get(k) as T) : (m.set(k, make()), m.get(k) as T)) };
};

/** Everything a version takes of the candidates, in order. */
const shown = (items: GeneratedItem[]) =>
  items.map((i) => ({ id: i.id, kind: i.kind, text: i.generated_text, subjects: i.subject_uids, basis: i.basis_uids, confidence: i.confidence, citations: i.citations }));

/** The sources in a comparable shape (maps in uid order). */
const plain = (s: ProjectSources) => ({
  documents: [...s.documents.values()].map((d) => [d.uid, d.version, d.title]).sort(),
  chunks: [...s.chunks.values()].map((c) => [c.uid, c.version, c.document_uid, c.content]).sort(),
  nodes: [...s.nodes.values()].map((n) => [n.uid, n.version, n.node_type, n.confidence, n.created_at, JSON.stringify(n.status), n.importance, n.label]).sort(),
  edges: s.edges.map((e) => [e.uid, e.version, e.edge_type, e.from_uid, e.to_uid, JSON.stringify(e.props)]),
  admitting: s.admitting.map((a) => [a.uid, a.version]),
  extractions: [...s.extractions].sort().map(([u, l]) => [u, l.map((x) => [x.edge_uid, x.edge_version, x.chunk_uid, JSON.stringify(x.location)])]),
});

describe('a Project view updated by the members each change names', () => {
  it('gives what a view read afresh gives, after edits, deletions, admissions and removals', () => {
    const w = new World();
    w.node(P, 'Project', 'Brief');
    for (const d of ['d1', 'd2', 'd3']) w.document(d, 4);
    w.node('stray', 'Claim', 'Not in any Project', { content: 'stray' });

    const kept = new ProjectView(w.model.stamp(ORG, P), P, w.model.members(ORG, P));
    const keptWork = work();
    w.fill(kept);
    // the first ranking is built before any change, as the service keeps it
    expect(kept.candidates(keptWork).length).toBeGreaterThan(0);
    let updates = 0;

    const check = (what: string) => {
      const stamp = w.model.stamp(ORG, P);
      const changed = w.model.changedSince(ORG, P, kept.stamp);
      expect({ what, remembered: changed !== null }).toEqual({ what, remembered: true });
      const uids = [...changed!];
      kept.update(stamp, uids, w.model.membersOf(ORG, P, uids));
      updates++;
      w.fill(kept);
      const cold = new ProjectView(stamp, P, w.model.members(ORG, P));
      w.fill(cold);
      expect({ what, sources: plain(kept.sources) }).toEqual({ what, sources: plain(cold.sources) });
      expect({ what, fp: kept.fingerprint() }).toEqual({ what, fp: sourceFingerprint(cold.sources) });
      expect({ what, fp: cold.fingerprint() }).toEqual({ what, fp: sourceFingerprint(cold.sources) });
      // the kept ranking, with its kept texts and citations, against a fresh ranking of fresh sources
      expect({ what, items: shown(kept.candidates(keptWork)) }).toEqual({ what, items: shown(cold.candidates(work())) });
      expect({ what, items: shown(kept.candidates(keptWork)) }).toEqual({ what, items: shown(structuralCandidates(cold.sources)) });
    };

    // an edit (PATCH): label, text and confidence
    w.updateNode('d1c1n0', { label: 'Edited claim ✓', props: { _type: 'Claim', content: 'Edited claim ✓' }, confidence: 0.95 });
    check('edit');
    // a supporter's selector no longer anchors: its citation, in the finding it supports, falls back to its label
    w.updateEdge('d1c1n0-x', { props: { _type: 'ExtractedFrom', location: JSON.stringify({ exact: 'not in the chunk', start: 0, end: 16 }) } });
    check('selector');
    // a ranking fact without a version: a Hypothesis confirmed, a Question's importance
    w.touchNode('d2c1n3', { status: 'confirmed' });
    w.touchNode('d2c2n2', { importance: 0.99 });
    check('touch');
    // a tension resolved, then its edge's other Contradicts
    w.updateEdge('d1c0-con', { props: { _type: 'Contradicts', resolution_status: 'resolved' } });
    check('resolved');
    // a deletion: a Claim that supports another and is in a tension
    w.updateNode('d1c2n0', { tombstone_at: 5000, tombstone_reason: 'gone' });
    check('delete');
    // a chunk edited: every node extracted from it cites it
    w.updateNode('d2c0', { props: { _type: 'Chunk', content: 'Intro. Claim one of d2c0. Claim two of d2c0. Why is d2c0?. Maybe d2c0. Outro ✓ edited.', chunk_index: 0, char_offset_start: 0 } });
    check('chunk');
    // a document retitled: its citations change
    w.updateNode('d3', { label: 'Report d3 v2', props: { _type: 'Document', title: 'Report d3, second edition' } });
    check('document');
    // a new admitted source: a fourth document, and a Supports edge from it into d1
    w.document('d4', 2);
    w.edge('cross', 'Supports', 'd4c0n0', 'd1c0n0');
    w.edge('cross-t', 'Refutes', 'd4c1n1', 'd2c3n1');
    check('admission');
    // a stray Claim extracted from an admitted chunk enters
    w.edge('stray-x', 'ExtractedFrom', 'stray', 'd4c0', { location: JSON.stringify({ exact: 'nowhere', start: 0, end: 7 }) });
    check('stray');
    // a PartOfProject edge removed: the document, its chunks, nodes and their edges leave
    w.updateEdge('d2-part', { tombstone_at: 6000, tombstone_reason: 'left' });
    check('removed PartOfProject');
    // and restored
    w.updateEdge('d2-part', { tombstone_at: null, tombstone_reason: null });
    check('restored PartOfProject');
    w.updateNode('d1c2n0', { tombstone_at: null, tombstone_reason: null });
    check('restored node');
    expect(updates).toBe(12);
  });

  it('names no member when nothing of the Project changed, and reads afresh after a clear', () => {
    const w = new World();
    w.node(P, 'Project', 'Brief');
    w.document('d1', 2);
    const stamp = w.model.stamp(ORG, P);
    w.node('elsewhere', 'Claim', 'elsewhere');
    w.edge('elsewhere-s', 'Supports', 'elsewhere', 'd1c0n0');
    expect(w.model.stamp(ORG, P)).toBe(stamp);
    expect(w.model.changedSince(ORG, P, stamp)).toEqual(new Set());
    w.updateNode('d1c0n0', { label: 'x' });
    expect(w.model.changedSince(ORG, P, stamp)).toEqual(new Set(['d1c0n0']));
    w.projection.apply({ ...eventFromLog('GraphCleared' as never, { org_id: ORG } as never), metadata: meta, id: 'c', stream: 'x', revision: 0, position: 999 } as RecordedEvent);
    expect(w.model.changedSince(ORG, P, stamp)).toBeNull();
  });

  it('asks for the records a generation reads and no other', () => {
    const w = new World();
    w.node(P, 'Project', 'Brief');
    w.document('d1', 1);
    const v = new ProjectView(w.model.stamp(ORG, P), P, w.model.members(ORG, P));
    const items = v.candidates(work());
    expect(() => items[0].generated_text).toThrow(MissingRecords);
    expect(v.needs([items[0]]).sort()).toEqual(['d1', 'd1c0', 'd1c0n0', 'd1c0n1']);
  });
});
