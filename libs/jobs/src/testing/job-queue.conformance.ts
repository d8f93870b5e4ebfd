/// <reference types="jest" />
import { FixedClock } from '@strata/domain/time';
import { JobQueue } from '../queue/job-queue.port';

export interface OpenedQueue {
  /** two handles on the same storage (two replicas, or the service and a CLI command) */
  queue: JobQueue;
  other: JobQueue;
  clock: FixedClock;
  cleanup: () => Promise<void>;
}

/** One conformance suite for every JobQueue adapter (SQLite in ops.db, MongoDB). */
export function describeJobQueueConformance(name: string, open: () => Promise<OpenedQueue>): void {
  describe(`${name} (JobQueue conformance)`, () => {
    let q: JobQueue;
    let other: JobQueue;
    let clock: FixedClock;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ queue: q, other, clock, cleanup } = await open());
    });
    afterEach(async () => {
      await q.close();
      await other.close();
      await cleanup();
    });

    const enqueue = async (kind: string, org = 'org-1', input: unknown = {}) => {
      const { job } = await q.enqueue({ kind, org, input });
      clock.advance(1);
      return job;
    };

    it('enqueues a pending job with its input, and gives it back whole', async () => {
      const { job, created } = await q.enqueue({ kind: 'embed', org: 'org-1', input: { model: 'm', ids: [1, 'x', null] } });
      expect(created).toBe(true);
      expect(job).toMatchObject({ kind: 'embed', org: 'org-1', status: 'pending', attempts: 0, owner: null, cancel_requested: false, checkpoint: null, created_at: clock.now() });
      expect(await q.get('org-1', job.id)).toEqual(job);
      expect(await q.get('org-2', job.id)).toBeNull();
      const counted = await q.enqueue({ kind: 'embed', org: 'org-1', input: null, progress: { total_nodes: 12 } });
      expect((await q.get('org-1', counted.job.id))!.progress).toEqual({ total_nodes: 12 });
    });

    it('takes the id the caller names, when it names one', async () => {
      const { job } = await q.enqueue({ id: 'named-job-1', kind: 'embed', org: 'org-1', input: {} });
      expect(job.id).toBe('named-job-1');
      expect((await other.get('org-1', 'named-job-1'))!.status).toBe('pending');
      expect((await q.claim(['embed'], 'r1', 30))!.id).toBe('named-job-1');
    });

    it('keeps a payload beside the job, out of what get and list give, until the job finishes', async () => {
      const big = 'x'.repeat(100_000);
      const { job } = await q.enqueue({ kind: 'ingest', org: 'org-1', input: { title: 't' }, payload: big });
      expect(JSON.stringify(await q.get('org-1', job.id))).not.toContain('xxxx');
      expect(JSON.stringify(await q.list('org-1'))).not.toContain('xxxx');
      expect(await other.payload(job.id)).toBe(big);
      expect(await q.payload('no-such-job')).toBeNull();
      const plain = (await q.enqueue({ kind: 'ingest', org: 'org-2', input: {} })).job;
      expect(await q.payload(plain.id)).toBeNull();
      await q.claim(['ingest'], 'r1', 30);
      expect(await q.payload(job.id)).toBe(big);
      await q.complete(job.id, 'r1', null);
      expect(await q.payload(job.id)).toBeNull();
      const pending = (await q.enqueue({ kind: 'later', org: 'org-1', input: {}, payload: 'p' })).job;
      await q.requestCancel('org-1', pending.id);
      expect(await q.payload(pending.id)).toBeNull();
    });

    it('gives back the active job with the same dedupe key instead of a second one, and a new one once it finished', async () => {
      const first = await q.enqueue({ kind: 'embed', org: 'org-1', input: 1, dedupeKey: 'all' });
      const again = await q.enqueue({ kind: 'embed', org: 'org-1', input: 2, dedupeKey: 'all' });
      expect(again).toEqual({ job: first.job, created: false });
      expect((await q.enqueue({ kind: 'embed', org: 'org-2', input: 1, dedupeKey: 'all' })).created).toBe(true);
      expect((await q.enqueue({ kind: 'other', org: 'org-1', input: 1, dedupeKey: 'all' })).created).toBe(true);
      const claimed = await q.claim(['embed'], 'r1', 30);
      expect(claimed!.id).toBe(first.job.id);
      expect((await q.enqueue({ kind: 'embed', org: 'org-1', input: 3, dedupeKey: 'all' })).created).toBe(false);
      await q.complete(first.job.id, 'r1', null);
      expect((await q.enqueue({ kind: 'embed', org: 'org-1', input: 4, dedupeKey: 'all' })).created).toBe(true);
    });

    it('claims the oldest pending job of the given kinds, once, with a lease', async () => {
      const a = await enqueue('embed');
      await enqueue('other');
      const c = await enqueue('embed');
      const first = await q.claim(['embed'], 'r1', 30);
      expect(first).toMatchObject({ id: a.id, status: 'running', owner: 'r1', lease_until: clock.now() + 30, attempts: 1, started_at: clock.now() });
      // the other handle (another replica) gets the next one, never the same
      expect((await other.claim(['embed'], 'r2', 30))!.id).toBe(c.id);
      expect(await q.claim(['embed'], 'r1', 30)).toBeNull();
      expect(await q.claim([], 'r1', 30)).toBeNull();
    });

    it('hands out each job to exactly one of many concurrent claims', async () => {
      for (let i = 0; i < 5; i++) await enqueue('embed');
      const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? q : other).claim(['embed'], `r${i}`, 30)));
      const ids = claims.filter((c) => c !== null).map((c) => c!.id);
      expect(ids).toHaveLength(5);
      expect(new Set(ids).size).toBe(5);
    });

    it('claims a running job again once its lease expired, keeping its checkpoint, and the old owner can no longer write', async () => {
      const job = await enqueue('embed');
      await q.claim(['embed'], 'dead', 30);
      expect(await q.progress(job.id, 'dead', { done: 4 }, { after: 'n4' })).toBe(true);
      clock.advance(29);
      expect(await other.claim(['embed'], 'r2', 30)).toBeNull();
      clock.advance(1);
      const again = await other.claim(['embed'], 'r2', 30);
      expect(again).toMatchObject({ id: job.id, owner: 'r2', attempts: 2, progress: { done: 4 }, checkpoint: { after: 'n4' } });
      expect(await q.progress(job.id, 'dead', { done: 5 }, { after: 'n5' })).toBe(false);
      expect(await q.complete(job.id, 'dead', 'late')).toBe(false);
      expect(await q.renew(job.id, 'dead', 30)).toBe('lost');
      expect(await other.complete(job.id, 'r2', { ok: true })).toBe(true);
      expect(await q.get('org-1', job.id)).toMatchObject({ status: 'completed', result: { ok: true }, checkpoint: { after: 'n4' }, finished_at: clock.now() });
    });

    it('renews a held lease, which keeps other claimers away', async () => {
      const job = await enqueue('embed');
      await q.claim(['embed'], 'r1', 30);
      clock.advance(20);
      expect(await q.renew(job.id, 'r1', 30)).toBe('held');
      clock.advance(20);
      expect(await other.claim(['embed'], 'r2', 30)).toBeNull();
      expect((await q.get('org-1', job.id))!.lease_until).toBe(clock.now() + 10);
    });

    it('records progress without touching the checkpoint unless one is given', async () => {
      const job = await enqueue('embed');
      await q.claim(['embed'], 'r1', 30);
      await q.progress(job.id, 'r1', { done: 1 }, { cursor: 1 });
      await q.progress(job.id, 'r1', { done: 2 });
      expect(await q.get('org-1', job.id)).toMatchObject({ progress: { done: 2 }, checkpoint: { cursor: 1 } });
    });

    it('cancels a pending job at once, flags a running one for its runner, and leaves a finished one as it is', async () => {
      const pending = await enqueue('embed');
      const running = await enqueue('other');
      const done = await enqueue('third');
      await q.claim(['other'], 'r1', 30);
      await q.claim(['third'], 'r1', 30);
      await q.fail(done.id, 'r1', 'broken');

      expect(await q.requestCancel('org-1', pending.id)).toMatchObject({ status: 'cancelled', finished_at: clock.now() });
      expect(await q.claim(['embed'], 'r1', 30)).toBeNull();
      expect(await other.requestCancel('org-1', running.id)).toMatchObject({ status: 'running', cancel_requested: true });
      expect(await q.renew(running.id, 'r1', 30)).toBe('cancel_requested');
      expect(await q.acknowledgeCancel(running.id, 'r1')).toBe(true);
      expect(await q.get('org-1', running.id)).toMatchObject({ status: 'cancelled' });
      expect(await q.requestCancel('org-1', done.id)).toMatchObject({ status: 'failed', error: 'broken' });
      expect(await q.requestCancel('org-2', done.id)).toBeNull();
    });

    it('takes a released job back as pending, for any runner to claim at once', async () => {
      const job = await enqueue('embed');
      await q.claim(['embed'], 'r1', 300);
      expect(await q.release(job.id, 'r2')).toBe(false);
      expect(await q.release(job.id, 'r1')).toBe(true);
      expect(await other.claim(['embed'], 'r2', 30)).toMatchObject({ id: job.id, owner: 'r2', attempts: 2 });
    });

    it('lists the jobs of an organization oldest first, by kind or status', async () => {
      const a = await enqueue('embed');
      const b = await enqueue('other');
      await enqueue('embed', 'org-2');
      await q.claim(['other'], 'r1', 30);
      expect((await q.list('org-1')).map((j) => j.id)).toEqual([a.id, b.id]);
      expect((await q.list('org-1', { kind: 'embed' })).map((j) => j.id)).toEqual([a.id]);
      expect((await q.list('org-1', { status: 'running' })).map((j) => j.id)).toEqual([b.id]);
    });

    it('counts active jobs by kind and status across organizations, with the oldest one\'s age, and leaves finished ones out', async () => {
      const a = await enqueue('embed');
      await enqueue('embed', 'org-2');
      const c = await enqueue('other');
      const d = await enqueue('other');
      await q.claim(['other'], 'r1', 30);
      await q.claim(['other'], 'r1', 30);
      await q.complete(d.id, 'r1', null);
      const rows = (await q.activity()).sort((x, y) => `${x.kind}${x.status}`.localeCompare(`${y.kind}${y.status}`));
      expect(rows).toEqual([
        { kind: 'embed', status: 'pending', count: 2, oldest_created_at: a.created_at },
        { kind: 'other', status: 'running', count: 1, oldest_created_at: c.created_at },
      ]);
    });

    it('forgets finished jobs older than a cut-off, never active ones', async () => {
      const old = await enqueue('embed');
      const active = await enqueue('other');
      await q.claim(['embed'], 'r1', 30);
      await q.complete(old.id, 'r1', null);
      const finishedAt = clock.now();
      clock.advance(100);
      expect(await q.removeFinishedBefore(finishedAt)).toBe(0);
      expect(await q.removeFinishedBefore(clock.now())).toBe(1);
      expect(await q.get('org-1', old.id)).toBeNull();
      expect(await q.get('org-1', active.id)).not.toBeNull();
    });

    it('forgets failed and cancelled jobs by the same cut-off (retention), and a running one never, however old', async () => {
      const failed = await enqueue('fragile');
      await q.claim(['fragile'], 'r1', 30);
      await q.fail(failed.id, 'r1', 'broke');
      const cancelled = await enqueue('embed');
      await q.requestCancel('org-1', cancelled.id);
      const running = await enqueue('long');
      await q.claim(['long'], 'r2', 30);
      clock.advance(10 * 86_400);
      expect(await other.removeFinishedBefore(clock.now() - 86_400)).toBe(2);
      expect((await q.list('org-1')).map((j) => [j.id, j.status])).toEqual([[running.id, 'running']]);
    });

    it("forgets an organization's finished jobs of the given kinds, never active ones nor other organizations'", async () => {
      const done = await enqueue('embed');
      const cancelled = await enqueue('embed');
      const running = await enqueue('embed');
      const otherKind = await enqueue('other');
      const otherOrg = await enqueue('embed', 'org-2');
      await q.claim(['embed'], 'r1', 30);
      await q.complete(done.id, 'r1', null);
      await q.requestCancel('org-1', cancelled.id);
      await q.claim(['embed'], 'r1', 30);
      await q.claim(['other'], 'r1', 30);
      await q.complete(otherKind.id, 'r1', null);
      expect(await q.removeFinishedOf('org-1', ['embed'])).toBe(2);
      expect(await q.get('org-1', done.id)).toBeNull();
      expect(await q.get('org-1', cancelled.id)).toBeNull();
      expect((await q.get('org-1', running.id))?.status).toBe('running');
      expect((await q.get('org-1', otherKind.id))?.status).toBe('completed');
      expect((await q.get('org-2', otherOrg.id))?.status).toBe('pending');
      expect(await q.removeFinishedOf('org-1', [])).toBe(0);
    });

    it('runs the jobs of one serial group one at a time, oldest first, without holding up other organizations or free jobs', async () => {
      const a1 = (await q.enqueue({ kind: 'ingest', org: 'org-1', input: 1, serialGroup: 'ingestion' })).job;
      clock.advance(1);
      const a2 = (await q.enqueue({ kind: 'ingest', org: 'org-1', input: 2, serialGroup: 'ingestion' })).job;
      clock.advance(1);
      const b1 = (await q.enqueue({ kind: 'ingest', org: 'org-2', input: 3, serialGroup: 'ingestion' })).job;
      clock.advance(1);
      const free = (await q.enqueue({ kind: 'ingest', org: 'org-1', input: 4 })).job;
      clock.advance(1);
      expect((await q.claim(['ingest'], 'r1', 30))!.id).toBe(a1.id);
      // org-1's second job waits for its first; org-2's and the free one do not
      expect((await other.claim(['ingest'], 'r2', 30))!.id).toBe(b1.id);
      expect((await other.claim(['ingest'], 'r2', 30))!.id).toBe(free.id);
      expect(await other.claim(['ingest'], 'r2', 30)).toBeNull();
      await q.complete(a1.id, 'r1', null);
      expect((await other.claim(['ingest'], 'r2', 30))!.id).toBe(a2.id);
      expect((await q.get('org-1', a2.id))!.serial_group).toBe('ingestion');
    });

    it('lets the next job of a serial group run once the one before is cancelled while pending', async () => {
      const a1 = (await q.enqueue({ kind: 'ingest', org: 'org-1', input: 1, serialGroup: 'g' })).job;
      clock.advance(1);
      const a2 = (await q.enqueue({ kind: 'ingest', org: 'org-1', input: 2, serialGroup: 'g' })).job;
      await q.requestCancel('org-1', a1.id);
      expect((await q.claim(['ingest'], 'r1', 30))!.id).toBe(a2.id);
    });
  });
}
