import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { DomainError } from '@strata/domain/errors';
import { RecordedEvent, Streams } from '@strata/domain/events';
import { decideUpdateNode, GraphChanges } from '@strata/domain/graph';
import { EdgeFilter } from '@strata/graph-store/graph-read-model.port';
import { FixedClock, randomIds } from '@strata/domain/time';
import { Subscription } from '@strata/event-store/event-store.port';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '@strata/graph-store/sqlite/sqlite-graph-writer';
import { CheckpointWatcher } from '@strata/projections/server/checkpoint-watcher';
import { CommandContext } from './command-context';
import { createNode } from './graph-ops';
import { GraphTx } from './graph-tx';
import { ServerUnitOfWork } from './server-unit-of-work';

/** The SQLite read model with the one-document reads the server unit of work uses. */
class RevisionedSqliteStore extends SqliteGraphStore {
  async getNodeWithRevision(org: string, uid: string) {
    const record = this.getNodeSync(org, uid);
    return record ? { record, revision: this.nodeRevisionSync(org, uid) } : null;
  }
  async getEdgeWithRevision(org: string, uid: string) {
    const record = this.getEdgeSync(org, uid);
    return record ? { record, revision: this.edgeRevisionSync(org, uid) } : null;
  }
  async listEdgesWithRevisions(org: string, f: EdgeFilter, limit?: number) {
    return this.listEdgesSync(org, f, limit).map((record) => ({ record, revision: this.edgeRevisionSync(org, record.uid) }));
  }
}

/**
 * The server unit of work over real stores: a SQLite log standing in for KurrentDB and a
 * projector on a subscription (as the worker runs it), which a test can hold back to make
 * the read model lag.
 */
describe('ServerUnitOfWork', () => {
  let dir: string;
  let events: SqliteEventStore;
  let graph: RevisionedSqliteStore;
  let applied: number;
  /** while set, the projector holds the next event until it is opened */
  let gate: { held: Promise<void>; open: () => void } | null;
  const pause = () => {
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    gate = { held, open };
  };
  const resume = () => {
    gate?.open();
    gate = null;
  };
  let subscription: Subscription;
  let watcher: CheckpointWatcher;
  const ctx = (): CommandContext => ({
    org: 'org-1',
    principal: { kind: 'user', id: 'u1' },
    credential_id: null,
    agent_id: null,
    request_id: `req-${Math.random()}`,
  });
  const uow = (readWaitMs = 2000) => new ServerUnitOfWork(events, graph, watcher, new FixedClock(), randomIds, readWaitMs);
  const update = (uid: string, body: Record<string, unknown>) => async (tx: GraphTx) => {
    const n = await tx.node(uid);
    if (!n) throw new Error('missing');
    const changed = decideUpdateNode(n, body, tx.write);
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', changed, null));
    return changed;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-suow-'));
    events = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 5 });
    graph = new RevisionedSqliteStore(new Database(':memory:'));
    const writer = new SqliteGraphWriter(graph);
    applied = 0;
    gate = null;
    subscription = events.subscribe(0, async (e: RecordedEvent) => {
      while (gate) await gate.held;
      writer.apply(e);
      applied = e.position;
    });
    watcher = new CheckpointWatcher(async () => applied, 2);
  });
  afterEach(async () => {
    resume();
    watcher.stop();
    await subscription.close();
    await events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('appends the request’s events together and answers once the read model shows them', async () => {
    const c = ctx();
    const [a, b] = await uow().run(c, async (tx) => [createNode(tx, { label: 'A', node_type: 'Note' }), createNode(tx, { label: 'B', node_type: 'Note' })]);
    expect(c.lagging).toBeUndefined();
    expect(await graph.getNode('org-1', a.uid)).toEqual(a);
    expect(await graph.getNode('org-1', b.uid)).toEqual(b);
    const logged = await events.readAll({ after: 0, limit: 10 });
    expect(logged.map((e) => e.type)).toEqual(['NodeCreated', 'NodeCreated']);
  });

  it('answers a write the read model has not shown in time, marked as lagging', async () => {
    pause();
    const c = ctx();
    const n = await uow(30).run(c, async (tx) => createNode(tx, { label: 'Slow', node_type: 'Note' }));
    expect(c.lagging).toBe(true);
    expect(await graph.getNode('org-1', n.uid)).toBeNull();
    expect((await events.readStream(Streams.node('org-1', n.uid))).length).toBe(1);
    resume();
    expect(await watcher.waitFor(await events.headPosition(), 2000)).toBe(true);
    expect(await graph.getNode('org-1', n.uid)).toEqual(n);
  });

  it('also waits for every added read model (a replica mirror): lagging when one of them is late', async () => {
    const seen: number[] = [];
    let shows = true;
    const mirror = {
      waitFor: async (position: number) => {
        seen.push(position);
        return shows;
      },
    };
    const u = uow(200);
    u.addProjectionWait(mirror);
    const c1 = ctx();
    await u.run(c1, async (tx) => createNode(tx, { label: 'Mirrored', node_type: 'Note' }));
    expect(c1.lagging).toBeUndefined();
    expect(seen).toEqual([await events.headPosition()]);
    shows = false;
    const c2 = ctx();
    const n = await u.run(c2, async (tx) => createNode(tx, { label: 'Mirror behind', node_type: 'Note' }));
    expect(c2.lagging).toBe(true);
    // the write itself succeeded, and the worker's read model shows it
    expect(await graph.getNode('org-1', n.uid)).toEqual(n);
  });

  it('appends nothing for a request that staged nothing', async () => {
    const out = await uow().run(ctx(), async () => 'read only');
    expect(out).toBe('read only');
    expect(await events.headPosition()).toBe(0);
  });

  it('decides again, on the caught-up read model, when its first decision rested on a stale one', async () => {
    const n = await uow().run(ctx(), async (tx) => createNode(tx, { label: 'v1', node_type: 'Note' }));
    pause();
    const first = ctx();
    await uow(20).run(first, update(n.uid, { label: 'v2' }));
    expect(first.lagging).toBe(true);
    // the projector catches up while the second request waits for the read model
    const waitFor = watcher.waitFor.bind(watcher);
    jest.spyOn(watcher, 'waitFor').mockImplementation((position, ms) => {
      const waiting = waitFor(position, ms);
      resume();
      return waiting;
    });
    const second = ctx();
    const result = await uow(2000).run(second, update(n.uid, { summary: 'later' }));
    expect(result).toMatchObject({ label: 'v2', summary: 'later', version: 3 });
    expect(await graph.getNode('org-1', n.uid)).toMatchObject({ label: 'v2', summary: 'later', version: 3 });
    expect((await events.readStream(Streams.node('org-1', n.uid))).map((e) => e.type)).toEqual(['NodeCreated', 'NodeUpdated', 'NodeUpdated']);
  });

  it('answers 409 version_conflict and writes nothing when the read model cannot catch up to decide again', async () => {
    const n = await uow().run(ctx(), async (tx) => createNode(tx, { label: 'v1', node_type: 'Note' }));
    pause();
    await uow(20).run(ctx(), update(n.uid, { label: 'v2' }));
    const head = await events.headPosition();
    const err = await uow(40)
      .run(ctx(), update(n.uid, { label: 'v3' }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ status: 409, code: 'version_conflict' });
    expect(await events.headPosition()).toBe(head);
  });

  it('keeps a client’s stale expected_version a conflict, whatever the retries', async () => {
    const n = await uow().run(ctx(), async (tx) => createNode(tx, { label: 'v1', node_type: 'Note' }));
    await uow().run(ctx(), update(n.uid, { label: 'v2' }));
    const err = await uow()
      .run(ctx(), update(n.uid, { label: 'v3', expected_version: 1 }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 409, code: 'version_conflict' });
    expect(await graph.getNode('org-1', n.uid)).toMatchObject({ label: 'v2', version: 2 });
  });

  it('deletes purged streams only after the purge marker is appended, and none if the append fails', async () => {
    const n = await uow().run(ctx(), async (tx) => createNode(tx, { label: 'doomed', node_type: 'Note' }));
    const failing = await uow(20)
      .run(ctx(), async (tx) => {
        tx.deleteStreams([Streams.node('org-1', n.uid)]);
        tx.emit(Streams.graph('org-1'), 'GraphPurged', { node_uids: [n.uid], edge_uids: [], cutoff: null }, 7);
      })
      .catch((e: unknown) => e);
    expect(failing).toMatchObject({ code: 'version_conflict' });
    expect((await events.readStream(Streams.node('org-1', n.uid))).length).toBe(1);
    await uow().run(ctx(), async (tx) => {
      tx.deleteStreams([Streams.node('org-1', n.uid)]);
      tx.emit(Streams.graph('org-1'), 'GraphPurged', { node_uids: [n.uid], edge_uids: [], cutoff: null });
    });
    expect(await events.readStream(Streams.node('org-1', n.uid))).toEqual([]);
    expect(await graph.getNode('org-1', n.uid)).toBeNull();
  });

  it('deletes a stream that is written again (a clear) before appending to it', async () => {
    await uow().run(ctx(), async (tx) => tx.emit(Streams.graph('org-1'), 'AliasSet', { text: 'a', norm: 'a', canonical_uid: 'x', score: 1, created_at: 1 }));
    await uow().run(ctx(), async (tx) => {
      tx.deleteStreams([Streams.graph('org-1')]);
      tx.emit(Streams.graph('org-1'), 'GraphCleared', { at: 2 });
    });
    expect((await events.readStream(Streams.graph('org-1'))).map((e) => e.type)).toEqual(['GraphCleared']);
  });
});
