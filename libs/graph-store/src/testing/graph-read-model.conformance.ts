import { randomUUID } from 'node:crypto';
import { RecordedEvent } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel, NodeFilter } from '../graph-read-model.port';
import { GraphEventLog } from './graph-event-log.fixture';

export interface GraphReadModelHarness {
  model: GraphReadModel;
  /** projects events (in log order) the way the adapter's writer does in production */
  apply(events: RecordedEvent[]): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * The one behavioural contract of the graph read model: every adapter, fed the same events,
 * answers every query the same way. Events come from the real deciders (GraphEventLog).
 * Each test works in fresh organizations, so a long-lived server database needs no reset.
 */
export function describeGraphReadModelConformance(name: string, factory: () => Promise<GraphReadModelHarness>, opts: { timeoutMs?: number } = {}): void {
  describe(`GraphReadModel conformance: ${name}`, () => {
    let h: GraphReadModelHarness;
    let model: GraphReadModel;
    let log: GraphEventLog;
    const newOrg = () => `org-${randomUUID().slice(0, 8)}`;
    const flush = () => h.apply(log.take());
    const uids = (items: { uid: string }[]) => items.map((i) => i.uid);
    const list = async (org: string, f: NodeFilter, order?: Parameters<GraphReadModel['listNodes']>[3]) =>
      uids((await model.listNodes(org, f, { limit: 1000, offset: 0 }, order)).items);

    if (opts.timeoutMs) jest.setTimeout(opts.timeoutMs);

    beforeAll(async () => {
      h = await factory();
      model = h.model;
      log = new GraphEventLog();
    });
    afterAll(async () => {
      await h?.cleanup();
    });

    /** Three people, a goal and a custom-typed node, created one second apart. */
    async function seed(org: string) {
      const ada = log.createNode(org, { label: 'Ada Lovelace', node_type: 'Person', props: { full_name: 'Ada Lovelace' }, salience: 0.9 });
      log.tick();
      const alan = log.createNode(org, { label: 'Alan Turing', node_type: 'Person', props: { full_name: 'Alan Turing' }, confidence: 0.4 }, { agent_id: 'agent-7' });
      log.tick();
      const goal = log.createNode(org, { label: 'Ship v2 (C++ port)', node_type: 'Goal', props: { description: 'ship', status: 'active' }, privacy_level: 'shared' });
      log.tick();
      const widget = log.createNode(org, { label: 'Blue widget', node_type: 'Widget', props: { color: 'blue', size: 3, tags: ['blue', 'small'], flag: true } });
      log.tick();
      await flush();
      return { ada, alan, goal, widget };
    }

    describe('nodes', () => {
      it('returns the full record of a node, and null for an unknown uid', async () => {
        const org = newOrg();
        const { ada, widget } = await seed(org);
        expect(await model.getNode(org, ada.uid)).toEqual(ada);
        expect(await model.getNode(org, widget.uid)).toEqual(widget);
        expect(await model.getNode(org, 'missing')).toBeNull();
      });

      it('returns only the nodes that exist from getNodes', async () => {
        const org = newOrg();
        const { ada, goal } = await seed(org);
        const got = await model.getNodes(org, [ada.uid, 'missing', goal.uid]);
        expect([...got.keys()].sort()).toEqual([ada.uid, goal.uid].sort());
        expect(got.get(goal.uid)).toEqual(goal);
        expect((await model.getNodes(org, [])).size).toBe(0);
      });

      it('follows every versioned change, with the node stream revision', async () => {
        const org = newOrg();
        const { ada } = await seed(org);
        expect(await model.nodeRevision(org, ada.uid)).toBe(0);
        expect(await model.nodeRevision(org, 'missing')).toBe(-1);
        log.tick();
        const updated = log.updateNode(org, ada.uid, { label: 'Augusta Ada King', props: { description: 'mathematician' } });
        const tomb = log.tombstoneNode(org, ada.uid, 'duplicate');
        await flush();
        expect(await model.getNode(org, ada.uid)).toEqual(tomb);
        expect(tomb.version).toBe(3);
        expect(updated.label).toBe('Augusta Ada King');
        expect(await model.nodeRevision(org, ada.uid)).toBe(2);
        const restored = log.restoreNode(org, ada.uid);
        await flush();
        expect(await model.getNode(org, ada.uid)).toEqual(restored);
        expect(restored.tombstone_at).toBeNull();
        expect(await model.nodeRevision(org, ada.uid)).toBe(3);
      });

      it('merges a touch into the record without a new version, moving the revision', async () => {
        const org = newOrg();
        const { widget } = await seed(org);
        log.touchNode(org, { uid: widget.uid, props: { size: 4, count: 1 }, updated_at: log.tick() });
        log.touchNode(org, { uid: widget.uid, salience: 0.8 });
        log.touchNode(org, { uid: 'never-created', props: { x: 1 } });
        await flush();
        const got = (await model.getNode(org, widget.uid))!;
        expect(got.props).toEqual({ ...widget.props, size: 4, count: 1 });
        expect(got.salience).toBe(0.8);
        expect(got.updated_at).toBe(log.now);
        expect(got.version).toBe(1);
        expect(await model.nodeRevision(org, widget.uid)).toBe(2);
        expect(await model.versionCount(org, [widget.uid], [])).toBe(1);
        expect(await model.getNode(org, 'never-created')).toBeNull();
      });

      it('applies salience decay to the nodes listed, leaving revisions alone', async () => {
        const org = newOrg();
        const { ada, alan } = await seed(org);
        log.decay(org, [{ uid: ada.uid, salience: 0.45 }, { uid: 'gone', salience: 0.1 }]);
        await flush();
        expect((await model.getNode(org, ada.uid))!.salience).toBe(0.45);
        expect((await model.getNode(org, alan.uid))!.salience).toBe(alan.salience);
        expect(await model.nodeRevision(org, ada.uid)).toBe(0);
        expect(await model.getNode(org, 'gone')).toBeNull();
      });
    });

    describe('listNodes and countNodes', () => {
      it('lists live nodes newest first by default', async () => {
        const org = newOrg();
        const { ada, alan, goal, widget } = await seed(org);
        expect(await list(org, {})).toEqual([widget.uid, goal.uid, alan.uid, ada.uid]);
        expect(await model.countNodes(org, {})).toBe(4);
      });

      it('hides tombstoned nodes unless asked, and selects them by tombstone time', async () => {
        const org = newOrg();
        const { ada, alan, goal, widget } = await seed(org);
        const t1 = log.tick();
        log.tombstoneNode(org, ada.uid);
        log.tick();
        log.tombstoneNode(org, alan.uid);
        await flush();
        expect(await list(org, {})).toEqual([widget.uid, goal.uid]);
        expect(await list(org, { include_tombstoned: true })).toEqual([widget.uid, goal.uid, alan.uid, ada.uid]);
        expect(await list(org, { only_tombstoned: true })).toEqual([alan.uid, ada.uid]);
        expect(await list(org, { include_tombstoned: true, tombstoned_before: t1 })).toEqual([ada.uid]);
        expect(await list(org, { only_tombstoned: true, tombstoned_before: t1 - 1 })).toEqual([]);
        expect(await model.countNodes(org, { only_tombstoned: true })).toBe(2);
      });

      it('filters by type, excluded type, layer, agent and privacy', async () => {
        const org = newOrg();
        const { ada, alan, goal, widget } = await seed(org);
        expect(await list(org, { node_types: ['Person'] })).toEqual([alan.uid, ada.uid]);
        expect(await list(org, { node_types: ['Person', 'Goal'] })).toEqual([goal.uid, alan.uid, ada.uid]);
        expect(await list(org, { exclude_node_types: ['Person', 'Widget'] })).toEqual([goal.uid]);
        expect(await list(org, { layer: 'intent' })).toEqual([goal.uid]);
        expect(await list(org, { layer: 'reality' })).toEqual([widget.uid, alan.uid, ada.uid]);
        expect(await list(org, { agent_id: 'agent-7' })).toEqual([alan.uid]);
        expect(await list(org, { agent_id: 'nobody' })).toEqual([]);
        expect(await list(org, { privacy_level: 'shared' })).toEqual([goal.uid]);
        expect(await model.countNodes(org, { node_types: ['Person'], agent_id: 'agent-7' })).toBe(1);
      });

      it('finds labels by case-insensitive substring, taking special characters literally, and by normalised label', async () => {
        const org = newOrg();
        const { ada, alan, goal } = await seed(org);
        expect(await list(org, { label_contains: 'LOVE' })).toEqual([ada.uid]);
        expect(await list(org, { label_contains: 'tur' })).toEqual([alan.uid]);
        expect(await list(org, { label_contains: '' })).toHaveLength(4);
        expect(await list(org, { label_contains: '(C++' })).toEqual([goal.uid]);
        expect(await list(org, { label_contains: '.*' })).toEqual([]);
        expect(await list(org, { label_norm: 'alan turing' })).toEqual([alan.uid]);
        expect(await list(org, { label_norm: 'ship v2 c port' })).toEqual([goal.uid]);
      });

      it('bounds creation time inclusively and filters confidence and salience', async () => {
        const org = newOrg();
        const { ada, alan, goal, widget } = await seed(org);
        expect(await list(org, { created_after: alan.created_at })).toEqual([widget.uid, goal.uid, alan.uid]);
        expect(await list(org, { created_before: alan.created_at })).toEqual([alan.uid, ada.uid]);
        expect(await list(org, { created_after: alan.created_at, created_before: goal.created_at })).toEqual([goal.uid, alan.uid]);
        expect(await list(org, { confidence_lt: 0.5 })).toEqual([alan.uid]);
        expect(await list(org, { confidence_min: 0.5 })).toEqual([widget.uid, goal.uid, ada.uid]);
        expect(await list(org, { confidence_min: 0.4 })).toHaveLength(4);
        expect(await list(org, { salience_min: 0.9 })).toEqual([ada.uid]);
      });

      it('restricts to given uids, an empty list matching nothing', async () => {
        const org = newOrg();
        const { ada, goal } = await seed(org);
        expect(await list(org, { uids: [ada.uid, goal.uid, 'missing'] })).toEqual([goal.uid, ada.uid]);
        expect(await list(org, { uids: [] })).toEqual([]);
        expect(await model.countNodes(org, { uids: [] })).toBe(0);
      });

      it('filters props by value and by list, null meaning null or absent', async () => {
        const org = newOrg();
        const { ada, alan, goal, widget } = await seed(org);
        expect(await list(org, { props_equals: { color: 'blue' } })).toEqual([widget.uid]);
        expect(await list(org, { props_equals: { size: 3 } })).toEqual([widget.uid]);
        expect(await list(org, { props_equals: { status: 'active' } })).toEqual([goal.uid]);
        expect(await list(org, { props_equals: { flag: true } })).toEqual([widget.uid]);
        expect(await list(org, { props_equals: { color: null } })).toEqual([goal.uid, alan.uid, ada.uid]);
        expect(await list(org, { props_equals: { tags: 'blue' } })).toEqual([]);
        expect(await list(org, { props_in: { status: ['active', 'completed'] } })).toEqual([goal.uid]);
        expect(await list(org, { props_in: { color: ['red', null] } })).toEqual([goal.uid, alan.uid, ada.uid]);
        expect(await list(org, { props_in: { full_name: ['Alan Turing', 'Ada Lovelace'] } })).toEqual([alan.uid, ada.uid]);
        expect(await list(org, { props_in: { status: [] } })).toEqual([]);
        expect(await list(org, { props_in: { flag: [true, null] } })).toHaveLength(4);
        expect(await list(org, { props_in: { flag: [false] } })).toEqual([]);
        expect(await list(org, { node_types: ['Person'], props_equals: { full_name: 'Ada Lovelace' } })).toEqual([ada.uid]);
        expect(await model.countNodes(org, { props_in: { color: ['blue'] } })).toBe(1);
      });

      it('orders by creation, update or salience, breaking ties by uid', async () => {
        const org = newOrg();
        const same = log.tick();
        const made = ['c', 'a', 'b'].map((u) => log.createNode(org, { label: `Tie ${u}`, node_type: 'Note' }, { uid: `tie-${u}` }));
        log.tick();
        const later = log.createNode(org, { label: 'Later', node_type: 'Note', salience: 0.9 }, { uid: 'later' });
        log.tick();
        log.updateNode(org, 'tie-c', { salience: 0.9 });
        await flush();
        expect(made.every((n) => n.created_at === same)).toBe(true);
        expect(await list(org, {}, 'created_desc')).toEqual([later.uid, 'tie-a', 'tie-b', 'tie-c']);
        expect(await list(org, {}, 'created_asc')).toEqual(['tie-a', 'tie-b', 'tie-c', later.uid]);
        expect(await list(org, {}, 'updated_desc')).toEqual(['tie-c', later.uid, 'tie-a', 'tie-b']);
        expect(await list(org, {}, 'salience_desc')).toEqual(['tie-c', later.uid, 'tie-a', 'tie-b']);
        log.updateNode(org, 'tie-a', { confidence: 0.2 });
        log.updateNode(org, later.uid, { confidence: 0.2 });
        await flush();
        expect(await list(org, {}, 'confidence_asc')).toEqual([later.uid, 'tie-a', 'tie-b', 'tie-c']);
      });

      it('pages with limit and offset, saying exactly when more remain', async () => {
        const org = newOrg();
        for (let i = 0; i < 5; i++) {
          log.createNode(org, { label: `Page ${i}`, node_type: 'Note' }, { uid: `p${i}` });
          log.tick();
        }
        await flush();
        const page = (limit: number, offset: number) => model.listNodes(org, {}, { limit, offset }, 'created_asc');
        expect(await page(2, 0)).toEqual({ items: [log.node(org, 'p0'), log.node(org, 'p1')], has_more: true });
        expect(uids((await page(2, 2)).items)).toEqual(['p2', 'p3']);
        expect(await page(2, 3)).toMatchObject({ has_more: false });
        expect(uids((await page(2, 4)).items)).toEqual(['p4']);
        expect(await page(5, 0)).toMatchObject({ has_more: false });
        expect(await page(2, 10)).toEqual({ items: [], has_more: false });
      });
    });

    describe('edges', () => {
      async function graph(org: string) {
        const s = await seed(org);
        const e1 = log.createEdge(org, s.ada.uid, s.alan.uid, { edge_type: 'AffiliatedWith', weight: 0.7, props: { context: 'letters' } }, { uid: 'e1' });
        log.tick();
        const e2 = log.createEdge(org, s.alan.uid, s.goal.uid, { edge_type: 'RelatedTo' }, { uid: 'e2' });
        log.tick();
        const e3 = log.createEdge(org, s.goal.uid, s.ada.uid, { edge_type: 'RelatedTo' }, { uid: 'e3' });
        log.tick();
        const e4 = log.createEdge(org, s.widget.uid, s.ada.uid, { edge_type: 'PartOf', props: { role: 'part' } }, { uid: 'e4' });
        log.tick();
        await flush();
        return { ...s, e1, e2, e3, e4 };
      }

      it('returns the full record and the edge stream revision', async () => {
        const org = newOrg();
        const g = await graph(org);
        expect(await model.getEdge(org, 'e1')).toEqual(g.e1);
        expect(await model.getEdge(org, 'missing')).toBeNull();
        expect(await model.edgeRevision(org, 'e1')).toBe(0);
        expect(await model.edgeRevision(org, 'missing')).toBe(-1);
        log.tick();
        const updated = log.updateEdge(org, 'e1', { weight: 0.2, props: { context: 'talks' } });
        await flush();
        expect(await model.getEdge(org, 'e1')).toEqual(updated);
        expect(await model.edgeRevision(org, 'e1')).toBe(1);
      });

      it('filters by endpoint, either endpoint, both endpoints in a set, and type, oldest first', async () => {
        const org = newOrg();
        const g = await graph(org);
        const e = (f: Parameters<GraphReadModel['listEdges']>[1], limit?: number) => model.listEdges(org, f, limit).then(uids);
        expect(await e({})).toEqual(['e1', 'e2', 'e3', 'e4']);
        expect(await e({ from_uid: g.ada.uid })).toEqual(['e1']);
        expect(await e({ to_uid: g.ada.uid })).toEqual(['e3', 'e4']);
        expect(await e({ touching: g.ada.uid })).toEqual(['e1', 'e3', 'e4']);
        expect(await e({ touching: g.ada.uid }, 2)).toEqual(['e1', 'e3']);
        expect(await e({ among: [g.ada.uid, g.alan.uid, g.goal.uid] })).toEqual(['e1', 'e2', 'e3']);
        expect(await e({ among: [g.ada.uid, g.widget.uid] })).toEqual(['e4']);
        expect(await e({ among: [] })).toEqual([]);
        expect(await e({ edge_types: ['RelatedTo'] })).toEqual(['e2', 'e3']);
        expect(await e({ edge_types: ['RelatedTo', 'PartOf'], touching: g.ada.uid })).toEqual(['e3', 'e4']);
        expect(await e({ from_uid: g.alan.uid, to_uid: g.goal.uid })).toEqual(['e2']);
        expect(await e({}, 1)).toEqual(['e1']);
      });

      it('reads the edges touching each of many uids at once as listEdges reads them one by one', async () => {
        if (!model.edgesTouchingEach) return; // optional: readers without it are asked uid by uid
        const org = newOrg();
        const g = await graph(org);
        const loop = log.createEdge(org, g.alan.uid, g.alan.uid, { edge_type: 'RelatedTo' }, { uid: 'e5' });
        log.tick();
        log.tombstoneEdge(org, 'e2', 'manual');
        await flush();
        const set = [g.ada.uid, g.alan.uid, g.goal.uid, g.widget.uid, 'missing'];
        for (const limit of [1, 2, 500]) {
          const each = await model.edgesTouchingEach(org, set, limit);
          for (const u of set) expect(uids(each.get(u) ?? [])).toEqual(uids(await model.listEdges(org, { touching: u }, limit)));
        }
        expect(uids((await model.edgesTouchingEach(org, [g.alan.uid], 10)).get(g.alan.uid)!)).toEqual(['e1', loop.uid]);
        expect((await model.edgesTouchingEach(org, [], 10)).size).toBe(0);
      });

      it('filters edge props like node props', async () => {
        const org = newOrg();
        await graph(org);
        const e = (f: Parameters<GraphReadModel['listEdges']>[1]) => model.listEdges(org, f).then(uids);
        expect(await e({ props_equals: { role: 'part' } })).toEqual(['e4']);
        expect(await e({ props_equals: { context: null } })).toEqual(['e2', 'e3', 'e4']);
        expect(await e({ props_in: { context: ['letters', 'talks'] } })).toEqual(['e1']);
        expect(await e({ props_in: { role: ['part', null], context: [null] } })).toEqual(['e2', 'e3', 'e4']);
      });

      it('hides tombstoned edges unless asked, and finds cascade tombstones by reason', async () => {
        const org = newOrg();
        const g = await graph(org);
        log.tick();
        log.tombstoneNode(org, g.ada.uid);
        for (const uid of ['e1', 'e3', 'e4']) log.tombstoneEdge(org, uid, `cascade:${g.ada.uid}`);
        log.tombstoneEdge(org, 'e2', 'manual');
        await flush();
        const e = (f: Parameters<GraphReadModel['listEdges']>[1]) => model.listEdges(org, f).then(uids);
        expect(await e({})).toEqual([]);
        expect(await e({ include_tombstoned: true })).toEqual(['e1', 'e2', 'e3', 'e4']);
        expect(await e({ touching: g.ada.uid, include_tombstoned: true, tombstone_reason: `cascade:${g.ada.uid}` })).toEqual(['e1', 'e3', 'e4']);
        expect(await e({ include_tombstoned: true, tombstone_reason: 'manual' })).toEqual(['e2']);
        log.restoreNode(org, g.ada.uid);
        log.restoreEdge(org, 'e1');
        await flush();
        expect(await e({ touching: g.ada.uid })).toEqual(['e1']);
        expect((await model.getEdge(org, 'e1'))!.tombstone_reason).toBeNull();
      });
    });

    describe('aliases', () => {
      it('lists aliases of a node by score, by normalised text, and all of them by creation', async () => {
        const org = newOrg();
        const { ada, alan } = await seed(org);
        log.setAlias(org, { text: 'Ada', norm: 'ada', canonical_uid: ada.uid, score: 0.7, created_at: 10 });
        log.setAlias(org, { text: 'Countess', norm: 'countess', canonical_uid: ada.uid, score: 0.9, created_at: 11 });
        log.setAlias(org, { text: 'A. Lovelace', norm: 'a lovelace', canonical_uid: ada.uid, score: 0.7, created_at: 9 });
        log.setAlias(org, { text: 'ADA', norm: 'ada', canonical_uid: alan.uid, score: 0.2, created_at: 12 });
        await flush();
        expect((await model.aliasesOf(org, ada.uid)).map((a) => a.norm)).toEqual(['countess', 'a lovelace', 'ada']);
        expect(await model.aliasesByNorm(org, 'ada')).toEqual([
          { text: 'Ada', norm: 'ada', canonical_uid: ada.uid, score: 0.7, created_at: 10 },
          { text: 'ADA', norm: 'ada', canonical_uid: alan.uid, score: 0.2, created_at: 12 },
        ]);
        expect((await model.allAliases(org)).map((a) => a.text)).toEqual(['A. Lovelace', 'Ada', 'Countess', 'ADA']);
        expect(await model.aliasesOf(org, 'missing')).toEqual([]);
      });

      it('breaks alias ties by canonical uid', async () => {
        const org = newOrg();
        log.setAlias(org, { text: 'Twin', norm: 'twin', canonical_uid: 'z-node', score: 0.5, created_at: 10 });
        log.setAlias(org, { text: 'Twin', norm: 'twin', canonical_uid: 'a-node', score: 0.5, created_at: 10 });
        await flush();
        expect((await model.aliasesByNorm(org, 'twin')).map((a) => a.canonical_uid)).toEqual(['a-node', 'z-node']);
        expect((await model.allAliases(org)).map((a) => a.canonical_uid)).toEqual(['a-node', 'z-node']);
      });

      it('updates text and score of an alias set again, keeping its creation time, and removes it', async () => {
        const org = newOrg();
        const { ada } = await seed(org);
        log.setAlias(org, { text: 'Ada', norm: 'ada', canonical_uid: ada.uid, score: 0.5, created_at: 10 });
        await flush();
        log.setAlias(org, { text: 'ADA!', norm: 'ada', canonical_uid: ada.uid, score: 0.6, created_at: 20 });
        await flush();
        expect(await model.aliasesOf(org, ada.uid)).toEqual([{ text: 'ADA!', norm: 'ada', canonical_uid: ada.uid, score: 0.6, created_at: 10 }]);
        log.removeAlias(org, 'ada', ada.uid);
        log.removeAlias(org, 'never', ada.uid);
        await flush();
        expect(await model.aliasesOf(org, ada.uid)).toEqual([]);
      });
    });

    describe('embeddings', () => {
      it('keeps the configuration and float32 vectors, and drops vectors on a forced change', async () => {
        const org = newOrg();
        const { ada, alan } = await seed(org);
        expect(await model.embeddingConfig(org)).toBeNull();
        log.configureEmbeddings(org, { dimensions: 3, configured_at: 100 });
        log.setEmbedding(org, ada.uid, [0.1, 0.2, 1 / 3]);
        log.setEmbedding(org, alan.uid, [1, 0, 0]);
        await flush();
        expect(await model.embeddingConfig(org)).toEqual({
          provider: 'builtin',
          model: 'lexical-hash-v1',
          dimensions: 3,
          distance_metric: 'cosine',
          configured_at: 100,
        });
        expect(await model.getEmbedding(org, ada.uid)).toEqual({
          uid: ada.uid,
          vector: Array.from(Float32Array.from([0.1, 0.2, 1 / 3])),
          model: 'lexical-hash-v1',
          dimension: 3,
          updated_at: log.now,
        });
        log.setEmbedding(org, ada.uid, [0, 1, 0], 'other');
        log.deleteEmbedding(org, alan.uid);
        await flush();
        expect(await model.getEmbedding(org, ada.uid)).toMatchObject({ vector: [0, 1, 0], model: 'other' });
        expect(await model.getEmbedding(org, alan.uid)).toBeNull();
        log.configureEmbeddings(org, { provider: 'openai', model: 'm', dimensions: 2, distance_metric: 'dot', configured_at: 200, dropped: true });
        await flush();
        expect(await model.getEmbedding(org, ada.uid)).toBeNull();
        expect(await model.embeddingConfig(org)).toMatchObject({ provider: 'openai', dimensions: 2, distance_metric: 'dot' });
      });
    });

    describe('series points', () => {
      it('selects points in [start, end) in either order, paged, a repeated timestamp replacing the point', async () => {
        const org = newOrg();
        log.appendPoints(org, 's1', [1, 2, 3, 4, 5].map((ts) => ({ ts, value: ts * 10 })));
        log.appendPoints(org, 's2', [{ ts: 1, value: 99 }]);
        log.appendPoints(org, 's1', [{ ts: 3, value: 33, source_uid: 'src', note: 'corrected', recorded_at: 7 }]);
        await flush();
        const q = (o: Partial<Parameters<GraphReadModel['seriesPoints']>[2]>) => model.seriesPoints(org, 's1', { limit: 100, offset: 0, ...o });
        expect((await q({})).items.map((p) => p.value)).toEqual([10, 20, 33, 40, 50]);
        expect((await q({ start: 2, end: 4 })).items.map((p) => p.ts)).toEqual([2, 3]);
        expect((await q({ order: 'desc', limit: 2 })).items.map((p) => p.ts)).toEqual([5, 4]);
        expect(await q({ order: 'desc', limit: 2 })).toMatchObject({ has_more: true });
        expect(await q({ limit: 2, offset: 3 })).toMatchObject({ has_more: false });
        expect((await q({ start: 3, end: 4 })).items).toEqual([{ series_uid: 's1', ts: 3, value: 33, source_uid: 'src', note: 'corrected', recorded_at: 7 }]);
        expect(await model.seriesPointCount(org, 's1')).toBe(5);
        expect(await model.seriesPointCount(org, 's2')).toBe(1);
        expect(await model.seriesPointCount(org, 'none')).toBe(0);
      });
    });

    describe('counts and stats', () => {
      it('counts versions held for nodes and edges', async () => {
        const org = newOrg();
        const { ada, alan } = await seed(org);
        log.updateNode(org, ada.uid, { salience: 0.1 });
        log.tombstoneNode(org, ada.uid);
        log.createEdge(org, alan.uid, ada.uid, { edge_type: 'RelatedTo' }, { uid: 'v-e' });
        log.updateEdge(org, 'v-e', { weight: 0.9 });
        await flush();
        expect(await model.versionCount(org, [ada.uid], [])).toBe(3);
        expect(await model.versionCount(org, [ada.uid, alan.uid, 'missing'], ['v-e'])).toBe(6);
        expect(await model.versionCount(org, [], [])).toBe(0);
      });

      it('summarises the organization’s graph', async () => {
        const org = newOrg();
        const { ada, alan, goal } = await seed(org);
        log.createEdge(org, ada.uid, alan.uid, { edge_type: 'KnownBy' }, { uid: 's-e1' });
        log.createEdge(org, alan.uid, goal.uid, { edge_type: 'RelatedTo' }, { uid: 's-e2' });
        log.tombstoneNode(org, goal.uid);
        log.tombstoneEdge(org, 's-e2', `cascade:${goal.uid}`);
        log.setAlias(org, { text: 'Ada', norm: 'ada', canonical_uid: ada.uid, score: 1 });
        log.configureEmbeddings(org, { dimensions: 2 });
        log.setEmbedding(org, ada.uid, [1, 0]);
        log.appendPoints(org, 'series-x', [{ ts: 1 }, { ts: 2 }]);
        await flush();
        expect(await model.stats(org)).toEqual({
          total_nodes: 4,
          live_nodes: 3,
          tombstoned_nodes: 1,
          total_edges: 2,
          live_edges: 1,
          tombstoned_edges: 1,
          nodes_by_type: { Person: 2, Widget: 1 },
          nodes_by_layer: { reality: 3 },
          edges_by_type: { KnownBy: 1 },
          total_versions: 4 + 1 + 2 + 1,
          total_aliases: 1,
          embedding_count: 1,
          series_point_count: 2,
        });
      });

      it('summarises an empty organization as zeros', async () => {
        expect(await model.stats(newOrg())).toEqual({
          total_nodes: 0,
          live_nodes: 0,
          tombstoned_nodes: 0,
          total_edges: 0,
          live_edges: 0,
          tombstoned_edges: 0,
          nodes_by_type: {},
          nodes_by_layer: {},
          edges_by_type: {},
          total_versions: 0,
          total_aliases: 0,
          embedding_count: 0,
          series_point_count: 0,
        });
      });
    });

    describe('purge and clear', () => {
      it('purges nodes with their aliases, vectors and series points, and the listed edges, leaving the rest', async () => {
        const org = newOrg();
        const { ada, alan, goal } = await seed(org);
        log.createEdge(org, ada.uid, alan.uid, { edge_type: 'KnownBy' }, { uid: 'p-e1' });
        log.createEdge(org, alan.uid, goal.uid, { edge_type: 'RelatedTo' }, { uid: 'p-e2' });
        log.setAlias(org, { text: 'Ada', norm: 'ada', canonical_uid: ada.uid, score: 1 });
        log.setAlias(org, { text: 'Alan', norm: 'alan', canonical_uid: alan.uid, score: 1 });
        log.configureEmbeddings(org, { dimensions: 2 });
        log.setEmbedding(org, ada.uid, [1, 0]);
        log.setEmbedding(org, alan.uid, [0, 1]);
        log.appendPoints(org, ada.uid, [{ ts: 1 }]);
        log.tombstoneNode(org, ada.uid);
        log.tombstoneEdge(org, 'p-e1', `cascade:${ada.uid}`);
        await flush();
        log.purge(org, { node_uids: [ada.uid], edge_uids: ['p-e1'], cutoff: log.now });
        await flush();
        expect(await model.getNode(org, ada.uid)).toBeNull();
        expect(await model.getEdge(org, 'p-e1')).toBeNull();
        expect(await model.aliasesOf(org, ada.uid)).toEqual([]);
        expect(await model.getEmbedding(org, ada.uid)).toBeNull();
        expect(await model.seriesPointCount(org, ada.uid)).toBe(0);
        expect(await model.getNode(org, alan.uid)).toEqual(alan);
        expect(await model.getEdge(org, 'p-e2')).not.toBeNull();
        expect((await model.aliasesOf(org, alan.uid)).length).toBe(1);
        expect(await model.getEmbedding(org, alan.uid)).not.toBeNull();
        expect(await model.stats(org)).toMatchObject({ total_nodes: 3, total_edges: 1, total_aliases: 1, embedding_count: 1 });
      });

      it('clears one organization’s graph, keeping its embedding configuration and every other organization', async () => {
        const org = newOrg();
        const other = newOrg();
        const { ada } = await seed(org);
        const kept = await seed(other);
        log.setAlias(org, { text: 'Ada', norm: 'ada', canonical_uid: ada.uid, score: 1 });
        log.configureEmbeddings(org, { dimensions: 2, configured_at: 5 });
        log.setEmbedding(org, ada.uid, [1, 0]);
        log.appendPoints(org, 'sx', [{ ts: 1 }]);
        log.createEdge(org, ada.uid, log.createNode(org, { label: 'x', node_type: 'Note' }).uid);
        await flush();
        log.clear(org);
        await flush();
        expect(await model.stats(org)).toMatchObject({ total_nodes: 0, total_edges: 0, total_aliases: 0, embedding_count: 0, series_point_count: 0 });
        expect(await model.embeddingConfig(org)).toMatchObject({ configured_at: 5 });
        expect(await model.getNode(other, kept.ada.uid)).toEqual(kept.ada);
        // the organization is usable again after a clear
        const again = log.createNode(org, { label: 'Fresh start', node_type: 'Note' });
        await flush();
        expect(await list(org, {})).toEqual([again.uid]);
      });
    });

    describe('membership mark', () => {
      it('moves on InSpace edges, Spaces, classification changes, purge and clear, and on nothing else', async () => {
        const org = newOrg();
        expect(await model.membershipMark(org)).toBe(0);
        const note = log.createNode(org, { label: 'Plain note', node_type: 'Note' });
        log.createEdge(org, note.uid, note.uid, { edge_type: 'RelatedTo' });
        await flush();
        expect(await model.membershipMark(org)).toBe(0);
        const space = log.createNode(org, { label: 'Vault', node_type: 'Space' });
        await flush();
        const afterSpace = await model.membershipMark(org);
        expect(afterSpace).toBeGreaterThan(0);
        const secret = log.createNode(org, { label: 'Secret plan', node_type: 'Note' });
        await flush();
        expect(await model.membershipMark(org)).toBe(afterSpace);
        log.updateNode(org, secret.uid, { classification: 'confidential' });
        await flush();
        const afterClassified = await model.membershipMark(org);
        expect(afterClassified).toBeGreaterThan(afterSpace);
        const inSpace = log.createEdge(org, secret.uid, space.uid, { edge_type: 'InSpace' });
        await flush();
        const afterEdge = await model.membershipMark(org);
        expect(afterEdge).toBeGreaterThan(afterClassified);
        log.updateNode(org, note.uid, { summary: 'still plain' });
        await flush();
        expect(await model.membershipMark(org)).toBe(afterEdge);
        log.tombstoneEdge(org, inSpace.uid);
        await flush();
        const afterTombstone = await model.membershipMark(org);
        expect(afterTombstone).toBeGreaterThan(afterEdge);
        log.clear(org);
        await flush();
        expect(await model.membershipMark(org)).toBeGreaterThan(afterTombstone);
        expect(await model.membershipMark(newOrg())).toBe(0);
      });
    });

    describe('tenancy', () => {
      it('keeps organizations apart, even for the same uids', async () => {
        const a = newOrg();
        const b = newOrg();
        const na = log.createNode(a, { label: 'Shared uid in A', node_type: 'Note' }, { uid: 'same' });
        const nb = log.createNode(b, { label: 'Shared uid in B', node_type: 'Goal', props: { description: 'b' } }, { uid: 'same' });
        log.createNode(b, { label: 'Only B', node_type: 'Note' }, { uid: 'only-b' });
        log.createEdge(b, 'same', 'only-b', { edge_type: 'RelatedTo' }, { uid: 'edge-b' });
        log.setAlias(b, { text: 'Same', norm: 'same', canonical_uid: 'same', score: 1 });
        log.appendPoints(b, 'same', [{ ts: 1 }]);
        await flush();
        expect(await model.getNode(a, 'same')).toEqual(na);
        expect(await model.getNode(b, 'same')).toEqual(nb);
        expect(await model.getNode(a, 'only-b')).toBeNull();
        expect([...(await model.getNodes(a, ['same', 'only-b'])).keys()]).toEqual(['same']);
        expect(await list(a, {})).toEqual(['same']);
        expect(await model.countNodes(a, { include_tombstoned: true })).toBe(1);
        expect(await model.getEdge(a, 'edge-b')).toBeNull();
        expect(await model.listEdges(a, { touching: 'same' })).toEqual([]);
        expect(await model.aliasesByNorm(a, 'same')).toEqual([]);
        expect(await model.seriesPointCount(a, 'same')).toBe(0);
        expect(await model.versionCount(a, ['same', 'only-b'], ['edge-b'])).toBe(1);
        expect(await model.stats(a)).toMatchObject({ total_nodes: 1, total_edges: 0, total_aliases: 0 });
      });

      it('ignores events that are not graph events', async () => {
        const org = newOrg();
        log.other(org, `apikey-${org}`, 'ApiKeyCreated', { id: 'k1' });
        log.other(org, `org-${org}`, 'OrganizationCreated', { name: 'x' });
        await flush();
        expect(await model.stats(org)).toMatchObject({ total_nodes: 0, total_edges: 0 });
      });
    });

    it('gives the same state whether events arrive one by one or in one batch', async () => {
      const org1 = newOrg();
      const org2 = newOrg();
      const script = (org: string): RecordedEvent[] => {
        const a = log.createNode(org, { label: 'A', node_type: 'Note' }, { uid: 'a' });
        const b = log.createNode(org, { label: 'B', node_type: 'Note' }, { uid: 'b' });
        log.createEdge(org, a.uid, b.uid, { edge_type: 'RelatedTo' }, { uid: 'ab' });
        log.updateNode(org, 'a', { label: 'A2' });
        log.touchNode(org, { uid: 'b', props: { n: 1 } });
        log.decay(org, [{ uid: 'a', salience: 0.2 }]);
        log.tombstoneNode(org, 'b');
        log.tombstoneEdge(org, 'ab', 'cascade:b');
        return log.take();
      };
      for (const e of script(org1)) await h.apply([e]);
      await h.apply(script(org2));
      const snapshot = async (org: string) => ({
        nodes: (await model.listNodes(org, { include_tombstoned: true }, { limit: 100, offset: 0 }, 'created_asc')).items.map(stripTimes),
        edges: (await model.listEdges(org, { include_tombstoned: true })).map((e) => ({ ...e, created_at: 0, updated_at: 0, tombstone_at: e.tombstone_at === null ? null : 0 })),
        revs: [await model.nodeRevision(org, 'a'), await model.nodeRevision(org, 'b'), await model.edgeRevision(org, 'ab')],
        versions: await model.versionCount(org, ['a', 'b'], ['ab']),
      });
      expect(await snapshot(org2)).toEqual(await snapshot(org1));
    });
  });
}

function stripTimes(n: NodeRecord): NodeRecord {
  return { ...n, created_at: 0, updated_at: 0, tombstone_at: n.tombstone_at === null ? null : 0 };
}
