import { GraphChanges } from '@strata/domain/graph';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PlanCatalogue } from '@strata/auth/plans/plan-catalogue';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { Streams } from '@strata/domain/events';
import { FixedClock, randomIds } from '@strata/domain/time';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { EmbeddedUnitOfWork } from '@strata/platform/unit-of-work/embedded-unit-of-work';
import { createNode, restoreNode, tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import type { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { nodeLimitCheck } from './node-limit.check';
import { EmbeddedUsageCounters } from './usage-counters';

const ORG = 'org-1';
const ctx: CommandContext = { org: ORG, principal: { kind: 'api_key', id: 'k1' }, credential_id: 'k1', agent_id: null, request_id: 'r1' };
const goal = (label: string) => ({ label, node_type: 'Goal' });

/** The real embedded unit of work, counters and plan limits, with the node limit registered. */
describe('the node limit as a unit-of-work check', () => {
  let dir: string;
  let storage: EmbeddedStorage;
  let uow: EmbeddedUnitOfWork;
  let counters: EmbeddedUsageCounters;

  function start(max: number) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-limit-'));
    storage = new EmbeddedStorage(dir, { clock: new FixedClock() });
    storage.runner.catchUp();
    uow = new EmbeddedUnitOfWork(storage, new FixedClock(100), randomIds);
    counters = new EmbeddedUsageCounters(storage, { creditsUsed: () => 0 } as unknown as AccountsReadModel, new FixedClock(100));
    const directory = { keyBySecretHash: () => null, membershipsOf: () => [], planOf: () => 'free' as const, onCredentialChange: () => undefined };
    uow.addCommitCheck(nodeLimitCheck(new PlanLimits(new PlanCatalogue({ free: { nodes: max } }), directory, counters, () => 100)));
  }
  afterEach(async () => {
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const live = () => storage.graph.countNodesSync(ORG, {});
  const createMany = (n: number, c = ctx) => uow.run(c, async (tx) => Array.from({ length: n }, (_, i) => createNode(tx, goal(`g${i}`))));

  it('counts every node a request would add and refuses the whole request, nothing written', async () => {
    start(3);
    await createMany(1);
    await expect(createMany(5)).rejects.toMatchObject({ status: 403, code: 'plan_limit_reached', context: { limit: 'nodes', max: 3, current: 1 } });
    expect(live()).toBe(1);
    expect(storage.events.headPositionSync()).toBe(1);
    await createMany(2);
    expect(live()).toBe(3);
    await expect(createMany(1)).rejects.toMatchObject({ code: 'plan_limit_reached' });
  });

  it('counts nodes however they are staged: restores, imports (live ones only); a tombstone frees a place', async () => {
    start(2);
    const [a, b] = await createMany(2);
    await uow.run(ctx, (tx) => tombstoneNode(tx, a.uid, { reason: null, cascade: false }));
    await createMany(1);
    await expect(uow.run(ctx, (tx) => restoreNode(tx, a.uid, null))).rejects.toMatchObject({ code: 'plan_limit_reached' });
    // tombstoning one and restoring another in one request adds nothing
    await uow.run(ctx, async (tx) => {
      await tombstoneNode(tx, b.uid, { reason: null, cascade: false });
      await restoreNode(tx, a.uid, null);
    });
    expect(live()).toBe(2);
    const imported = (uid: string, tombstone_at: number | null) => ({ ...a, uid, tombstone_at, tombstone_reason: tombstone_at ? 'x' : null });
    await expect(uow.run(ctx, async (tx) => tx.emit(Streams.node(ORG, 'i1'), 'NodeCreated', { node: imported('i1', null), reason: 'import' }, 'no_stream'))).rejects.toMatchObject({ code: 'plan_limit_reached' });
    await uow.run(ctx, async (tx) => tx.emit(GraphChanges.nodeCreated(tx.org, imported('i2', 50), 'import'))); // arrives tombstoned: not live
    expect(live()).toBe(2);
  });

  it('requests of one group commit see what the earlier ones added, even past the cached margin', async () => {
    start(1000);
    await createMany(1); // the count is cached from here on
    const all = await Promise.allSettled([createMany(400), createMany(400), createMany(400)]); // queued together: one batch
    expect(all.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(live()).toBe(801);
    expect(counters.liveNodes(ORG, false)).toBe(801);
  });

  it('a rolled-back batch leaves no phantom count behind', async () => {
    start(10_000); // far from the limit: the cached count is what answers
    await createMany(1);
    const first = await createMany(1);
    const ok = createMany(3); // projected first in the batch, then rolled back with it and replayed
    const clash = uow.run(ctx, async (tx) => {
      createNode(tx, goal('lost'));
      tx.emit(GraphChanges.nodeCreated(tx.org, { ...first[0], label: 'clone' })); // its stream exists: the append fails
    });
    await expect(clash).rejects.toMatchObject({ code: 'version_conflict' });
    await ok;
    expect(live()).toBe(5);
    expect(counters.liveNodes(ORG, false)).toBe(5);
  });

  it('the system principal (operator import, maintenance) is not limited; nothing is counted for reads', async () => {
    start(1);
    await createMany(1);
    await createMany(2, { ...ctx, principal: SYSTEM_PRINCIPAL });
    expect(live()).toBe(3);
    expect(await uow.run(ctx, async (tx) => (await tx.reader.listNodes(ORG, {}, { limit: 10, offset: 0 })).items.length)).toBe(3);
  });
});
