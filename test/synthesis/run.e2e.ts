import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { api, createApiKey, signUp } from '../support/http';
import { RetrievalFixture, expectError, mk, startRetrieval } from '../retrieval/retrieval-fixture';
import { SynthesisWorld, seedSynthesisWorld } from './synthesis-world';

const NOW = 1_780_000_000;
const offline = { ...loadConfig({}).llm, provider: 'offline' as const };

/** The job once it has finished (the durable runner polls every 2 s). */
async function finished(f: RetrievalFixture, id: string) {
  return eventually(
    async () => {
      const r = await f.w.get(`/jobs/${id}`);
      return ['completed', 'failed', 'cancelled'].includes(r.body?.status) ? r.body : null;
    },
    { what: `job ${id} finished`, timeoutMs: 20_000, everyMs: 50 },
  );
}

describe('POST /synthesis/run/{project_uid} (REFERENCE §10)', () => {
  it('501 llm_not_configured without a language model, and nothing is queued', async () => {
    const f = await startRetrieval({ clock: new FixedClock(NOW) });
    try {
      const project = await mk(f.w, 'Project', 'P', { props: { name: 'P', description: 'p' } });
      expectError(await f.w.post(`/synthesis/run/${project}`), 501, 'llm_not_configured');
      expect((await f.w.get('/jobs?kind=synthesis')).body.items).toEqual([]);
    } finally {
      await f.close();
    }
  });

  describe('with the offline provider', () => {
    const clock = new FixedClock(NOW);
    let f: RetrievalFixture;
    let s: SynthesisWorld;
    beforeAll(async () => {
      f = await startRetrieval({ clock, embeddingProvider: 'none', llm: offline });
      s = await seedSynthesisWorld(f.w);
    }, 60_000);
    afterAll(() => f.close());

    it('queues a synthesis job that writes an Article per top cluster, with Covers and PartOfProject', async () => {
      const r = await f.w.post(`/synthesis/run/${s.project}`);
      expect(r.status).toBe(202);
      expect(Object.keys(r.body)).toEqual(['job_id']);
      const queued = await f.w.get(`/jobs/${r.body.job_id}`);
      expect(queued.status).toBe(200);
      expect(queued.body).toMatchObject({ id: r.body.job_id, kind: 'synthesis', title: 'Synthesis of Analytical Engine', document_uid: null, created_at: NOW });
      expect(['pending', 'processing', 'completed']).toContain(queued.body.status);

      const job = await finished(f, r.body.job_id);
      expect(job).toMatchObject({
        kind: 'synthesis',
        status: 'completed',
        error: null,
        result: { articles_created: 1, article_uids: [expect.any(String)] },
        progress: { total_chunks: 0, processed_chunks: 0, nodes_created: 1, edges_created: 2 },
        started_at: NOW,
        completed_at: NOW,
      });
      expect(job.queue_position).toBeUndefined();
      const [uid] = job.result.article_uids;
      const article = (await f.w.get(`/node/${uid}`)).body;
      expect(article).toMatchObject({
        node_type: 'Article',
        label: 'Synthesis: Ada Lovelace',
        tombstone_at: null,
        props: {
          article_type: 'synthesis',
          covers_uid: s.n.ada,
          project_uid: s.project,
          generated_by: 'offline',
          generated_at: NOW,
          questions: ['Which holds: "Babbage wrote the earlier programs, not Lovelace" or "Ada Lovelace wrote the first program for the engine"?'],
        },
      });
      expect([...article.props.source_node_uids].sort()).toEqual([s.n.c1, s.n.c2, s.n.c3].sort());
      // deterministic structural text: the hub, its claims with their sources, the tensions
      expect(article.props.content).toBe(
        [
          '# Ada Lovelace',
          '',
          '3 claims from 3 of the 3 documents of Analytical Engine concern Ada Lovelace (Person).',
          '',
          '## Claims',
          '',
          '- Ada Lovelace described Bernoulli numbers (Letters to Babbage)',
          '- Ada Lovelace wrote the first program for the engine (Notes by the translator)',
          '- Babbage wrote the earlier programs, not Lovelace (A skeptical biography)',
          '',
          '## Tensions',
          '',
          '- "Babbage wrote the earlier programs, not Lovelace" contradicts "Ada Lovelace wrote the first program for the engine"',
          '',
          '## Support',
          '',
          'Evidence 1, arguments 0, warrants 0, theories and hypotheses 2, contradictions 1.',
        ].join('\n'),
      );
      const covers = (await f.w.get(`/edges?from_uid=${uid}&edge_type=Covers`)).body;
      expect(covers).toEqual([expect.objectContaining({ to_uid: s.n.ada, props: expect.objectContaining({ coverage: 'primary' }) })]);
      const part = (await f.w.get(`/edges?from_uid=${uid}&edge_type=PartOfProject`)).body;
      expect(part).toEqual([expect.objectContaining({ to_uid: s.project, props: expect.objectContaining({ admitted_at: NOW, admitted_by: expect.stringMatching(/^api_key:/) }) })]);
      // written as the caller whose request queued it (its job's writes are governed as that request, REFERENCE §13.6)
      const rw = (await api(f.app.url, f.jwt).get('/v1/api-keys')).body.items.find((k: { name: string }) => k.name === 'rw');
      expect((await f.w.get(`/node/${uid}/history`)).body[0].changed_by).toBe(rw.id);

      // the Article is an output of the Project: /retrieve/context with project_uid offers it
      const ctx = await f.w.post('/retrieve/context', { query: 'Ada Lovelace programs', project_uid: s.project });
      expect(ctx.body.articles.map((a: any) => [a.uid, a.article_type, a.covers_uid])).toEqual([[uid, 'synthesis', s.n.ada]]);
      // it is not among the Project's sources: the signals do not change
      expect((await f.w.get(`/synthesis/signals/${s.project}?signals=documents`)).body.documents).toHaveLength(3);

      expect((await f.w.get('/jobs?kind=synthesis')).body.items.map((j: any) => j.id)).toContain(r.body.job_id);
    });

    it('a Project without claim clusters completes with no Article', async () => {
      const empty = await mk(f.w, 'Project', 'Quiet', { props: { name: 'Quiet', description: 'nothing' } });
      const r = await f.w.post(`/synthesis/run/${empty}`, {});
      expect(r.status).toBe(202);
      expect(await finished(f, r.body.job_id)).toMatchObject({ status: 'completed', result: { articles_created: 0, article_uids: [] } });
    });

    it('checks the Project, the body and the credential before queueing anything', async () => {
      const before = (await f.w.get('/jobs?kind=synthesis')).body.items.length;
      expectError(await f.w.post('/synthesis/run/bad%20uid!'), 400, 'invalid_uid', 'project_uid');
      expectError(await f.w.post('/synthesis/run/no-such-project'), 404, 'not_found', 'project_uid');
      const wrong = await f.w.post(`/synthesis/run/${s.n.ada}`);
      expectError(wrong, 400, 'wrong_node_type', 'project_uid');
      expect(wrong.body.expected).toEqual(['Project']);
      expectError(await f.w.post(`/synthesis/run/${s.project}`, undefined, { raw: '[]' }), 400, 'invalid_json');
      expectError(await f.ro.post(`/synthesis/run/${s.project}`), 403, 'read_only_credential');
      const other = api(f.app.url, (await createApiKey(f.app.url, f.jwt, { scopes: ['read', 'write'], project_uids: [s.otherProject], name: 'looms' })).key);
      expectError(await other.post(`/synthesis/run/${s.project}`), 404, 'not_found', 'project_uid');
      expect((await f.w.get('/jobs?kind=synthesis')).body.items).toHaveLength(before);
    });

    it('a synthesis job of a Project hidden from a member is absent for it (REFERENCE §13.1)', async () => {
      const o = api(f.app.url, f.jwt);
      const space = (await o.post('/node', { node_type: 'Space', label: 'Board' })).body.uid;
      const secret = await mk(f.w, 'Project', 'Secret merger', { space_uid: space, props: { name: 'Secret merger', description: 'm' } });
      const open = await mk(f.w, 'Project', 'Open plan', { props: { name: 'Open plan', description: 'o' } });
      const hidden = (await f.w.post(`/synthesis/run/${secret}`)).body.job_id;
      const shown = (await f.w.post(`/synthesis/run/${open}`)).body.job_id;
      const m = await signUp(f.app.url);
      expect((await o.post(`/v1/orgs/${f.orgId}/members`, { email: m.email, role: 'member' })).status).toBe(201);
      const member = api(f.app.url, m.access_token, { org: f.orgId });
      expect((await member.get(`/node/${secret}`)).status).toBe(404);
      const listed = (await member.get('/jobs?kind=synthesis&limit=1000')).body;
      expect(listed.items.map((j: { id: string }) => j.id)).toContain(shown);
      expect(listed.items.map((j: { id: string }) => j.id)).not.toContain(hidden);
      expect(JSON.stringify(listed)).not.toContain('Secret merger');
      expectError(await member.get(`/jobs/${hidden}`), 404, 'not_found');
      expectError(await member.post(`/jobs/${hidden}/cancel`, {}), 404, 'not_found');
      expect((await f.w.get(`/jobs/${hidden}`)).body.title).toBe('Synthesis of Secret merger');
    });

    it('cancelling a finished job is refused; an unknown job is 404', async () => {
      const r = await f.w.post(`/synthesis/run/${s.otherProject}`);
      const job = await finished(f, r.body.job_id);
      expect(job.status).toBe('completed');
      expectError(await f.w.post(`/jobs/${job.id}/cancel`), 409, 'invalid_transition');
      expectError(await f.w.get('/jobs/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    });
  });
});
