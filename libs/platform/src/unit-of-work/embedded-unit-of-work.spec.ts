import { GraphChanges } from '@strata/domain/graph';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Errors } from '@strata/domain/errors';
import { FixedClock, randomIds } from '@strata/domain/time';
import { eventually } from '@strata/domain/testing/eventually';
import { WriteGate } from '@strata/event-store/sqlite/wal-checkpointer';
import { EmbeddedStorage } from '../storage/embedded-storage';
import { CommandContext } from './command-context';
import { DEFERRED_SYNC_BOUND_MS, EmbeddedUnitOfWork } from './embedded-unit-of-work';
import { createNode, createTriggerEdge } from './graph-ops';
import type { GraphTx } from './graph-tx';

/**
 * Holds a SQLite file's write lock from another thread (as the WAL checkpointer's RESTART or an
 * operator tool does) for `ms`; resolves once the lock is held, `released` once it is let go.
 */
/**
 * Another connection (a worker thread) takes the write lock and keeps it for `ms`; `releasing`
 * turns true just before it commits, so a write that went through after it must have waited.
 */
async function holdWriteLock(file: string, ms: number): Promise<{ released: Promise<void>; releasing: () => boolean }> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const db = new (require(workerData.driver))(workerData.file);
     db.exec('BEGIN IMMEDIATE');
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
     Atomics.store(workerData.flag, 0, 1);
     db.exec('COMMIT');
     db.close();`,
    { eval: true, workerData: { driver: require.resolve('better-sqlite3'), file, ms, flag } },
  );
  const released = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return { released, releasing: () => Atomics.load(flag, 0) === 1 };
}

const ctx: CommandContext = { org: 'org-1', principal: { kind: 'user', id: 'u1' }, credential_id: null, agent_id: null, request_id: 'r1' };

describe('EmbeddedUnitOfWork', () => {
  let dir: string;
  let storage: EmbeddedStorage;
  let uow: EmbeddedUnitOfWork;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uow-'));
    storage = new EmbeddedStorage(dir, { clock: new FixedClock() });
    storage.runner.catchUp();
    uow = new EmbeddedUnitOfWork(storage, new FixedClock(100), randomIds);
  });
  afterEach(async () => {
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers a write only once the log is on disk; what it committed is already there for the next batch', async () => {
    expect(storage.events.commitSyncDeferred).toBe(true); // the default projections session flushes lazily
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const sync = jest.spyOn(storage.events, 'syncCommitted').mockImplementationOnce(() => held);
    let firstAnswered = false;
    const first = uow.run(ctx, async (tx) => createNode(tx, { label: 'first', node_type: 'Goal' })).then((n) => ((firstAnswered = true), n));
    await eventually(() => sync.mock.calls.length === 1);
    // committed (a second batch reads it) but not acknowledged before its fsync
    const second = await uow.run(ctx, async (tx) => (await tx.reader.listNodes(ctx.org, {}, { limit: 10, offset: 0 })).items.length);
    expect(second).toBe(1);
    expect(firstAnswered).toBe(false);
    release();
    expect((await first).label).toBe('first');
    sync.mockRestore();
  });

  it('commits each request atomically and shows it to the next request of the same batch', async () => {
    const a = uow.run(ctx, async (tx) => createNode(tx, { label: 'first', node_type: 'Goal' }));
    const b = uow.run(ctx, async (tx) => {
      const goals = await tx.reader.listNodes(tx.org, { node_types: ['Goal'] }, { limit: 10, offset: 0 });
      return goals.items.map((n) => n.label);
    });
    await a;
    expect(await b).toEqual(['first']);
    expect(storage.events.headPositionSync()).toBe(1);
  });

  it('shows each commit check every event staged so far, those an earlier check staged included', async () => {
    const seen: string[][] = [];
    const labels = (tx: GraphTx) =>
      tx.stagedEvents().map((e) => (e.type === 'NodeCreated' ? e.data.node.label : e.type));
    uow.addCommitCheck(async (tx) => {
      seen.push(labels(tx));
      createNode(tx, { label: 'staged by a check', node_type: 'Task' });
    });
    uow.addCommitCheck(async (tx) => void seen.push(labels(tx)));
    await uow.run(ctx, async (tx) => createNode(tx, { label: 'staged by the handler', node_type: 'Task' }));
    expect(seen).toEqual([['staged by the handler'], ['staged by the handler', 'staged by a check']]);
    expect(storage.graph.countNodesSync('org-1', {})).toBe(2);
  });

  it('writes nothing for a request that fails, and still commits the others of its batch', async () => {
    const ok = uow.run(ctx, async (tx) => createNode(tx, { label: 'kept', node_type: 'Task' }));
    const bad = uow.run(ctx, async (tx) => {
      const n = createNode(tx, { label: 'dropped', node_type: 'Task' });
      createTriggerEdge(tx, n, n, 'DependsOn');
      throw Errors.refNotFound('goal_uid', 'nope');
    });
    await expect(bad).rejects.toMatchObject({ code: 'not_found' });
    const kept = await ok;
    expect(storage.graph.getNodeSync('org-1', kept.uid)?.label).toBe('kept');
    expect(storage.graph.countNodesSync('org-1', {})).toBe(1);
    expect(storage.graph.listEdgesSync('org-1', {})).toHaveLength(0);
    expect(storage.events.headPositionSync()).toBe(1);
  });

  it('rolls back a request whose append fails, keeping projections and log in step', async () => {
    const first = await uow.run(ctx, async (tx) => createNode(tx, { label: 'n', node_type: 'Task' }));
    // a stale expected revision: the stream already exists
    const clash = uow.run(ctx, async (tx) => {
      tx.emit(GraphChanges.nodeCreated(tx.org, { ...first, label: 'clone' }));
    });
    await expect(clash).rejects.toMatchObject({ code: 'version_conflict' });
    const next = await uow.run(ctx, async (tx) => createNode(tx, { label: 'after', node_type: 'Task' }));
    expect(storage.graph.getNodeSync('org-1', first.uid)?.label).toBe('n');
    expect(storage.graph.getNodeSync('org-1', next.uid)?.label).toBe('after');
    expect(storage.runner.status().every((s) => s.lag === 0)).toBe(true);
  });

  it('survives a restart: projections resume from their checkpoint and match the log', async () => {
    for (let i = 0; i < 20; i++) await uow.run(ctx, async (tx) => createNode(tx, { label: `n${i}`, node_type: 'Task' }));
    await storage.close();
    storage = new EmbeddedStorage(dir, { clock: new FixedClock() });
    storage.runner.catchUp();
    expect(storage.graph.countNodesSync('org-1', {})).toBe(20);
    expect(storage.runner.status().map((s) => s.lag)).toEqual(storage.runner.status().map(() => 0));
  });

  it('waits for a projections write lock held elsewhere instead of failing a request that reads before it writes', async () => {
    const first = await uow.run(ctx, async (tx) => createNode(tx, { label: 'read me', node_type: 'Task' }));
    const lock = await holdWriteLock(storage.projections.name, 150);
    expect(lock.releasing()).toBe(false);
    const next = await uow.run(ctx, async (tx) => {
      await tx.node(first.uid); // a read first: a deferred transaction would upgrade later, and fail
      return createNode(tx, { label: 'written after the wait', node_type: 'Task' });
    });
    expect(lock.releasing()).toBe(true); // it went through only once the other connection let go
    expect(storage.graph.getNodeSync('org-1', next.uid)?.label).toBe('written after the wait');
    await lock.released;
  });

  it('starts no batch while the WAL checkpointer holds the write gate, and commits it once the gate is let go', async () => {
    // the gate's cell as the checkpointer's worker leaves it while it holds the write locks
    const cell = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(cell, 0, 1);
    const gate = jest.spyOn(storage, 'writeGate', 'get').mockReturnValue(new WriteGate(cell));
    let decided = false;
    const write = uow.run(ctx, async (tx) => ((decided = true), createNode(tx, { label: 'after the gate', node_type: 'Task' })));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); // the event loop keeps turning meanwhile
    expect(decided).toBe(false);
    expect(storage.events.headPositionSync()).toBe(0);
    Atomics.store(cell, 0, 0);
    Atomics.notify(cell, 0);
    const node = await write;
    expect(storage.graph.getNodeSync('org-1', node.uid)?.label).toBe('after the gate');
    expect(Atomics.load(cell, 0)).toBe(0); // the batch gave the gate back
    gate.mockRestore();
  });

  it('answers 503 unavailable, writing nothing, when a lock stays held past the busy timeout', async () => {
    storage.projections.pragma('busy_timeout = 50');
    const lock = await holdWriteLock(storage.projections.name, 600);
    const refused = uow.run(ctx, async (tx) => createNode(tx, { label: 'refused', node_type: 'Task' }));
    await expect(refused).rejects.toMatchObject({ status: 503, code: 'unavailable', context: { retry_after: 1 } });
    expect(storage.events.headPositionSync()).toBe(0);
    await lock.released;
    const later = await uow.run(ctx, async (tx) => createNode(tx, { label: 'later', node_type: 'Task' }));
    expect(storage.graph.getNodeSync('org-1', later.uid)?.label).toBe('later');
    expect(storage.events.headPositionSync()).toBe(1);
  });

  describe('a deferred commit (durability: deferred)', () => {
    /** the log's fsync, held until the test releases it; counts how many were asked for */
    function gatedFsync() {
      const gates: (() => void)[] = [];
      const spy = jest.spyOn(storage.events, 'syncCommitted').mockImplementation(() => new Promise<void>((r) => gates.push(r)));
      return { count: () => spy.mock.calls.length, release: () => gates.shift()!(), spy };
    }
    /** the bound's timer, fired by the test */
    let bound: { fire: () => void; ms: number } | null;
    let cancelled: number;
    beforeEach(() => {
      bound = null;
      cancelled = 0;
      uow = new EmbeddedUnitOfWork(storage, new FixedClock(100), randomIds, (fire, ms) => {
        bound = { fire, ms };
        return () => void cancelled++;
      });
    });
    const announced: string[] = [];
    beforeEach(() => {
      announced.length = 0;
      storage.onCommitted((events) => announced.push(...events.map((e) => e.type)));
    });

    it('answers at the log commit, before any fsync, and announces the commit only once an fsync covers it', async () => {
      expect(storage.events.commitSyncDeferred).toBe(true);
      const fsync = gatedFsync();
      const node = await uow.run(ctx, async (tx) => createNode(tx, { label: 'step', node_type: 'Task' }), { durability: 'deferred' });
      expect(storage.graph.getNodeSync('org-1', node.uid)?.label).toBe('step');
      expect(fsync.count()).toBe(0);
      expect(announced).toEqual([]);
      expect(bound?.ms).toBe(DEFERRED_SYNC_BOUND_MS);
      bound!.fire();
      expect(fsync.count()).toBe(1);
      expect(announced).toEqual([]);
      fsync.release();
      await eventually(() => announced.length === 1);
      expect(announced).toEqual(['NodeCreated']);
      fsync.spy.mockRestore();
    });

    it('answers a batch of deferred commits before its projections COMMIT, which the next batch waits for', async () => {
      const fsync = gatedFsync();
      const node = await uow.run(ctx, async (tx) => createNode(tx, { label: 'step', node_type: 'Task' }), { durability: 'deferred' });
      // the caller reads its write on the projections' connection, their transaction still open
      expect(storage.projections.inTransaction).toBe(true);
      expect(storage.graph.getNodeSync('org-1', node.uid)?.label).toBe('step');
      const count = await uow.run(ctx, async (tx) => (await tx.reader.listNodes(ctx.org, {}, { limit: 10, offset: 0 })).items.length, { durability: 'deferred' });
      expect(count).toBe(1);
      // the next batch began once the first's COMMIT was done
      expect(storage.projections.inTransaction).toBe(false);
      const checkpoint = storage.runner.checkpoints.get('graph')?.position;
      expect(checkpoint).toBe(storage.runner.appliedPosition);
      fsync.spy.mockRestore();
    });

    it('becomes durable with the next durable commit: one fsync for both, announced in commit order', async () => {
      const fsync = gatedFsync();
      await uow.run(ctx, async (tx) => createNode(tx, { label: 'deferred', node_type: 'Task' }), { durability: 'deferred' });
      let answered = false;
      const durable = uow.run(ctx, async (tx) => createNode(tx, { label: 'durable', node_type: 'Goal' })).then(() => (answered = true));
      await eventually(() => fsync.count() === 1);
      expect(cancelled).toBe(1); // the bound is no longer needed
      expect(answered).toBe(false);
      expect(announced).toEqual([]);
      fsync.release();
      await durable;
      expect(fsync.count()).toBe(1);
      expect(announced).toEqual(['NodeCreated', 'NodeCreated']);
      fsync.spy.mockRestore();
    });

    it('durable() starts the fsync of pending deferred commits and resolves once it is done', async () => {
      const fsync = gatedFsync();
      await uow.run(ctx, async (tx) => createNode(tx, { label: 'before a tool call', node_type: 'Task' }), { durability: 'deferred' });
      let done = false;
      const d = uow.durable().then(() => (done = true));
      expect(fsync.count()).toBe(1);
      await Promise.resolve();
      expect(done).toBe(false);
      fsync.release();
      await d;
      expect(announced).toEqual(['NodeCreated']);
      // nothing pending: durable() waits for the fsync already done, and asks for none
      await uow.durable();
      expect(fsync.count()).toBe(1);
      fsync.spy.mockRestore();
    });

    it('announces nothing of a deferred commit whose fsync failed', async () => {
      jest.spyOn(storage.events, 'syncCommitted').mockImplementation(() => Promise.reject(new Error('EIO')));
      await uow.run(ctx, async (tx) => createNode(tx, { label: 'lost?', node_type: 'Task' }), { durability: 'deferred' });
      await expect(uow.durable()).rejects.toThrow('EIO');
      expect(announced).toEqual([]);
      jest.restoreAllMocks();
    });

    it('is durable on disk through the real fsync once the bound fires', async () => {
      const sync = jest.spyOn(storage.events, 'syncCommitted');
      await uow.run(ctx, async (tx) => createNode(tx, { label: 'real', node_type: 'Task' }), { durability: 'deferred' });
      bound!.fire();
      await eventually(() => announced.length === 1);
      expect(sync).toHaveBeenCalledTimes(1);
      sync.mockRestore();
    });
  });
});
