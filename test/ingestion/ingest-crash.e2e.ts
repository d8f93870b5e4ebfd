import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { Service, builtService, kill, removePrivateBuild, startService } from '../support/built-service';
import { api, signUpWithKey } from '../support/http';
import { startTestApp } from '../support/test-app';

/**
 * The built service is killed (SIGKILL) in the middle of an ingestion job. Decision (REFERENCE
 * §9.4 leaves it open): the job is not failed, it resumes. After a restart on the same data
 * dir the job stays active (resume answers 409 job_active) until the dead runner's lease
 * lapses; then the runner takes it up again, extracts only the chunks not yet committed, and
 * the Document ends `completed`. Everything committed before the kill is still there, and no
 * chunk was extracted twice.
 */

const ARTICLE = Array.from({ length: 220 }, (_, i) => `Part ${i}: Grace Hopper met Alan Turing in London in ${1900 + (i % 90)}. The compiler grew ${i}% that year.`).join('\n\n');

describe('ingestion through a killed service', () => {
  let entry: string;
  let dataDir: string;
  let svc: Service | null = null;

  beforeAll(() => {
    entry = builtService();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-ingest-crash-'));
  }, 300_000);
  afterAll(async () => {
    if (svc) await kill(svc);
    fs.rmSync(dataDir, { recursive: true, force: true });
    removePrivateBuild();
  });

  it('resumes the job after a restart: committed chunks stay, the rest are extracted once, the Document completes', async () => {
    svc = await startService(entry, dataDir, { STRATA_LLM_PROVIDER: 'offline' });
    const owner = await signUpWithKey(svc.url);
    let c = api(svc.url, owner.key);
    const res = await c.post('/ingest/document', { content: ARTICLE, title: 'Crash', chunk_size: 100, chunk_overlap: 0 });
    expect(res.status).toBe(202);
    const docUid: string = res.body.document_uid;
    const jobId: string = res.body.job_id;

    // kill it once a few chunks have committed, with more to go
    const before = await eventually(
      async () => {
        const j = (await c.get(`/jobs/${jobId}`)).body;
        return j.progress.processed_chunks >= 3 ? j : null;
      },
      { timeoutMs: 60_000, everyMs: 20, what: 'three committed chunks' },
    );
    expect(before.progress.processed_chunks).toBeLessThan(before.progress.total_chunks);
    const committed = new Map<string, number>();
    for (const n of (await c.get('/nodes?node_type=Chunk&limit=1000')).body.items) if (n.props.processing_status === 'completed') committed.set(n.uid, n.props.extraction_count);
    await kill(svc);
    svc = null;

    // the dead process still holds the job's lease: read it from the queue it left behind
    const ops = new Database(path.join(dataDir, 'ops.db'), { readonly: true });
    const leaseUntil = ops.prepare('SELECT lease_until FROM queued_jobs WHERE id = ?').pluck().get(jobId) as number;
    ops.close();
    const clock = new FixedClock(Math.floor(leaseUntil) - 30);
    const t = await startTestApp({ dataDir, clock, llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm, rateLimitPerMinute: 10_000_000 });
    try {
      c = api(t.url, owner.key);
      expect((await c.get(`/jobs/${jobId}`)).body.status).toBe('processing');
      const busy = await c.post(`/ingest/resume/${docUid}`, {});
      expect(busy.status).toBe(409);
      expect(busy.body.code).toBe('job_active');
      // nothing committed before the kill was lost
      for (const [uid, count] of committed) {
        const chunk = (await c.get(`/node/${uid}`)).body;
        expect(chunk.props).toMatchObject({ processing_status: 'completed', extraction_count: count });
      }

      clock.advance(31); // the lease lapses: the runner takes the job up again
      const job = await eventually(
        async () => {
          const j = (await c.get(`/jobs/${jobId}`)).body;
          return j.status === 'completed' || j.status === 'failed' ? j : null;
        },
        { timeoutMs: 120_000, everyMs: 100, what: 'the resumed job to finish' },
      );
      expect(job.status).toBe('completed');
      expect(job.result.chunks_completed).toBe(job.progress.total_chunks);
      expect(job.result.chunks_failed).toBe(0);
      expect((await c.get(`/node/${docUid}`)).body.props.processing_status).toBe('completed');

      // no chunk was extracted twice: each holds exactly its own provenance edges
      const chunks = (await c.get(`/edges?to_uid=${docUid}&edge_type=ChunkOf`)).body;
      expect(chunks).toHaveLength(job.progress.total_chunks);
      for (const e of chunks) {
        const chunk = (await c.get(`/node/${e.from_uid}`)).body;
        expect(chunk.props.processing_status).toBe('completed');
        expect((await c.get(`/edges?to_uid=${e.from_uid}&edge_type=ExtractedFrom`)).body).toHaveLength(chunk.props.extraction_count);
      }
      const indices = new Set<number>();
      for (const e of chunks) indices.add(e.props.chunk_index);
      expect(indices.size).toBe(chunks.length);
      expect((await c.post(`/ingest/resume/${docUid}`, {})).body).toEqual({ job_id: null, document_uid: docUid, chunks_pending: 0 });
    } finally {
      await t.close({ keepData: true });
    }
  }, 300_000);
});
