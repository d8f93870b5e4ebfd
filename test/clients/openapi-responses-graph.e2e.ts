import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { Api, request } from '../support/http';
import { AnswerRecorder } from '../support/openapi-answers';
import { RetrievalFixture, link, mk, newOrg, startRetrieval } from '../retrieval/retrieval-fixture';
import { SynthesisWorld, seedSynthesisWorld } from '../synthesis/synthesis-world';

const NOW = 1_780_000_000;

/** The operations this file holds to their documented answers: every one must be called below. */
const COVERED = [
  /^GET \/health/,
  /^GET \/(node|edge)\/\{uid\}\/history$/,
  /^POST \/(nodes|edges)\/batch$/,
  /^POST \/nodes\/delete$/,
  /^DELETE \/edge\/\{uid\}$/,
  /^(POST \/batch|GET \/stats|GET \/export|POST \/import|POST \/decay|POST \/purge|POST \/clear)$/,
  /^POST \/retrieve(\/context)?$/,
  /^(POST \/traverse|GET \/chain\/\{uid\}|GET \/neighborhood\/\{uid\}|GET \/path|POST \/subgraph|POST \/evolve)$/,
  /^(POST \/alias|GET \/aliases\/\{uid\}|GET \/resolve|POST \/entities\/merge|POST \/reality\/entity)$/,
  /^\w+ \/embeddings\//,
  /^\w+ \/node\/\{uid\}\/embedding$/,
  /^\w+ \/ingest\//,
  /^GET \/(goals|decisions|questions|claims\/weak|contradictions|approvals\/pending)$/,
  /^\w+ \/synthesis\//,
];

/**
 * The graph, retrieval, ingestion and synthesis routes answer what the OpenAPI document says,
 * checked as for the account routes (test/support/openapi-answers.ts): each call is made over
 * HTTP on a seeded corpus and its body validated against the declared 2xx schema, objects
 * closed unless the document leaves them open (node and edge records, props).
 */
describe('the OpenAPI document describes what the graph, retrieval, ingestion and synthesis routes answer', () => {
  const clock = new FixedClock(NOW);
  let f: RetrievalFixture;
  let s: SynthesisWorld;
  let doc: any;
  const answers = new AnswerRecorder();
  const { checked, failures } = answers;

  beforeAll(async () => {
    f = await startRetrieval({ clock, llm: { ...loadConfig({}).llm, provider: 'offline' } });
    s = await seedSynthesisWorld(f.w);
    doc = (await request(f.app.url, 'GET', '/openapi.json')).body;
    answers.use(doc);
  }, 60_000);
  afterAll(async () => f?.close());

  /** One call, recorded: a wrong status or an undocumented answer is collected, so one run names them all. */
  async function call(c: Api | null, method: string, url: string, template: string, body?: unknown, status = 200, note = '') {
    const r = c
      ? await (method === 'GET' ? c.get(url) : method === 'DELETE' ? c.delete(url) : method === 'PUT' ? c.put(url, body) : c.post(url, body))
      : await request(f.app.url, method, url);
    return answers.record(method, url, template, r, status, note);
  }

  it('health, history, batches, maintenance, retrieval, traversal, evolve, aliases, entities, embeddings, shortcuts, ingestion and synthesis', async () => {
    const w = f.w;
    const n = s.n;
    await call(null, 'GET', '/health', '/health');
    await call(null, 'GET', '/health/live', '/health/live');
    await call(null, 'GET', '/health/ready', '/health/ready');

    // the review queues' material
    const goal = await mk(w, 'Goal', 'Publish the notes', { props: { status: 'active', priority: 'high' } });
    await mk(w, 'Decision', 'Which translation to keep', { props: { status: 'open' } });
    await mk(w, 'Question', 'Who wrote the first program?');
    const weak = await mk(w, 'Claim', 'The engine was finished', { confidence: 0.2 });
    await w.post('/agent/governance', { action: 'request_approval', label: 'Publish?' });
    await mk(w, 'Preference', 'Prefers primary sources');
    const dupA = await mk(w, 'Person', 'Augusta Ada King');
    const dupB = await mk(w, 'Person', 'Augusta Ada King-Noel');
    await link(w, dupB, dupA, 'PossibleDuplicate', { props: { similarity: 0.8, method: 'fuzzy', status: 'pending' } });
    const premise = await mk(w, 'Claim', 'Ada read Menabrea');
    const derived = await mk(w, 'Claim', 'Ada extended Menabrea');
    await link(w, derived, premise, 'DerivedFrom');
    clock.advance(60); // the premise changes after the derivation: a stale derivation
    expect((await w.patch(`/node/${premise}`, { label: 'Ada translated Menabrea' })).status).toBe(200);

    for (const g of ['/goals', '/decisions', '/questions', '/claims/weak', '/contradictions', '/approvals/pending']) await call(w, 'GET', g, g);

    // nodes and edges
    await call(w, 'GET', `/node/${n.c1}/history`, '/node/{uid}/history');
    await call(w, 'GET', `/edge/${n.contra}/history`, '/edge/{uid}/history');
    await call(w, 'POST', '/nodes/batch', '/nodes/batch', { uids: [n.c1, 'no-such-node'] });
    await call(w, 'POST', '/edges/batch', '/edges/batch', { uids: [n.c1, n.c3, n.ada] });
    const extra = await link(w, n.manual, n.ada, 'About');
    await call(w, 'DELETE', `/edge/${extra}`, '/edge/{uid}');
    const batch = await call(w, 'POST', '/batch', '/batch', { nodes: [{ ref: 'a', label: 'Batch concept', node_type: 'Concept' }, { ref: 'b', label: 'Batch claim', node_type: 'Claim' }], edges: [{ from_ref: 'b', to_ref: 'a', edge_type: 'About' }] }, 201);
    await call(w, 'POST', '/nodes/delete', '/nodes/delete', { uids: [batch.refs?.b, 'no-such-node'], dry_run: true }, 200, 'dry run');
    await call(w, 'POST', '/nodes/delete', '/nodes/delete', { uids: [batch.refs?.b] });
    await call(w, 'GET', '/stats', '/stats');

    // retrieval
    for (const [action, extraFields] of Object.entries<Record<string, unknown>>({
      text: { query: 'Ada Lovelace' },
      semantic: { query: 'Ada Lovelace' },
      hybrid: { query: 'Ada Lovelace', explain: true, include_sources: true },
      active_goals: {},
      open_questions: {},
      weak_claims: {},
      pending_approvals: {},
      unresolved_contradictions: {},
      merge_candidates: {},
      curation_counts: {},
      stale_derivations: {},
      preferences: {},
      layer: { layer: 'reality' },
      recent: {},
    }))
      await call(w, 'POST', '/retrieve', '/retrieve', { action, ...extraFields }, 200, action);
    await call(w, 'POST', '/retrieve', '/retrieve', { action: 'preferences', query: 'sources' }, 200, 'preferences with a query');

    // traversal
    for (const [action, extraFields] of Object.entries<Record<string, unknown>>({
      chain: { include_provenance: true },
      neighborhood: {},
      path: { end_uid: n.th },
      subgraph: {},
      top_k_paths: { end_uid: n.th },
    }))
      await call(w, 'POST', '/traverse', '/traverse', { action, start_uid: n.c1, ...extraFields }, 200, action);
    await call(w, 'POST', '/traverse', '/traverse', { action: 'path', start_uid: n.c1, end_uid: goal }, 200, 'no path');
    await call(w, 'GET', `/chain/${n.c1}`, '/chain/{uid}');
    await call(w, 'GET', `/neighborhood/${n.ada}`, '/neighborhood/{uid}');
    await call(w, 'GET', `/path?from=${n.c1}&to=${n.ada}`, '/path');
    await call(w, 'POST', '/subgraph', '/subgraph', { start_uids: [n.ada], include_provenance: true });

    // evolve
    const ev = await mk(w, 'Claim', 'Evolving claim');
    const evEdge = await link(w, ev, n.ada, 'About');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'update', uid: ev, summary: 'touched' }, 200, 'update');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'history', uid: ev }, 200, 'history');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'snapshot', uid: ev, version: 1 }, 200, 'snapshot');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'tombstone_edge', uid: evEdge }, 200, 'tombstone_edge');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'restore_edge', uid: evEdge }, 200, 'restore_edge');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'tombstone', uid: ev }, 200, 'tombstone');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'restore', uid: ev }, 200, 'restore');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'tombstone_cascade', uid: ev }, 200, 'tombstone_cascade');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'decay', uid: n.c1 }, 200, 'decay one');
    await call(w, 'POST', '/evolve', '/evolve', { action: 'decay' }, 200, 'decay all');
    await call(w, 'POST', '/decay', '/decay', { dry_run: true, min_salience: 0.2, min_age_secs: 10 });

    // aliases and entities
    await call(w, 'POST', '/alias', '/alias', { text: 'Countess of Lovelace', canonical_uid: n.ada }, 201, 'new');
    await call(w, 'POST', '/alias', '/alias', { text: 'Countess of Lovelace', canonical_uid: n.ada, score: 0.9 }, 200, 'replaced');
    await call(w, 'GET', `/aliases/${n.ada}`, '/aliases/{uid}');
    await call(w, 'GET', '/resolve?text=Ada%20Lovelace', '/resolve', undefined, 200, 'found');
    await call(w, 'GET', '/resolve?text=zzqx', '/resolve', undefined, 200, 'nothing');
    const e1 = await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'create', label: 'Luigi Menabrea', props: { entity_type: 'person' } }, 201, 'create');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'create', label: 'Luigi Menabrea', props: { entity_type: 'person' } }, 200, 'create found');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'alias', text: 'L. F. Menabrea', canonical_uid: e1.uid }, 200, 'alias');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'resolve', text: 'L. F. Menabrea' }, 200, 'resolve');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'resolve', text: 'zzqx' }, 200, 'resolve nothing');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'fuzzy_resolve', text: 'Menabrea' }, 200, 'fuzzy_resolve');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'relate', source_uid: e1.uid, target_uid: n.ada, edge_type: 'RelatedTo' }, 201, 'relate');
    const m1 = await mk(w, 'Person', 'Charles Wheatstone');
    const m2 = await mk(w, 'Person', 'C. Wheatstone');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'merge', keep_uid: m1, merge_uid: m2 }, 200, 'merge');
    await call(w, 'POST', '/reality/entity', '/reality/entity', { action: 'create', label: 'Turin', props: { entity_type: 'place' }, unknown_field: 1 }, 201, 'create with a warning');
    await call(w, 'POST', '/entities/merge', '/entities/merge', { keep_uid: dupA, merge_uid: dupB });

    // synthesis
    await call(w, 'GET', `/synthesis/signals/${s.project}`, '/synthesis/signals/{project_uid}');
    const synthesis = await call(w, 'POST', `/synthesis/run/${s.project}`, '/synthesis/run/{project_uid}', {}, 202);
    await eventually(async () => (await w.get(`/jobs/${synthesis.job_id}`)).body?.status === 'completed', { what: 'the synthesis job completed', timeoutMs: 20_000, everyMs: 50 });
    // with the synthesis Article in place, context answers every part
    await call(w, 'POST', '/retrieve/context', '/retrieve/context', { query: 'Ada Lovelace program', chunk_limit: 3, graph_expansion_limit: 2 });
    await call(w, 'POST', '/retrieve/context', '/retrieve/context', { query: 'Ada Lovelace', article_limit: 0, valid_at: '2026-01-01' }, 200, 'valid_at');

    // ingestion
    await call(w, 'POST', '/ingest/chunk', '/ingest/chunk', { content: 'Charles Babbage designed the Difference Engine in London.' }, 201, 'new');
    await call(w, 'POST', '/ingest/chunk', '/ingest/chunk', { content: 'Charles Babbage designed the Difference Engine in London.' }, 200, 'deduplicated');
    const docContent = 'Engines\n\nAda Lovelace published her notes in 1843. Babbage admired them.';
    const queued = await call(w, 'POST', '/ingest/document', '/ingest/document', { content: docContent, project_uid: s.project }, 202, 'queued');
    await call(w, 'POST', '/ingest/document', '/ingest/document', { content: docContent }, 200, 'deduplicated');
    await call(w, 'POST', '/ingest/session', '/ingest/session', { content: 'Ada: we should publish.\nCharles: agreed.', title: 'Call' }, 202);
    await eventually(async () => (await w.get(`/jobs/${queued.job_id}`)).body?.status === 'completed', { what: 'the document job completed', timeoutMs: 20_000, everyMs: 50 });
    await call(w, 'POST', `/ingest/resume/${queued.document_uid}`, '/ingest/resume/{uid}', {}, 200, 'nothing left');
    await call(w, 'POST', '/ingest/cleanup', '/ingest/cleanup', {});
    await call(w, 'DELETE', `/ingest/document/${queued.document_uid}`, '/ingest/document/{uid}');

    // a second organization: embeddings on a configuration of its own, export, import, purge, clear
    const o = await newOrg(f.app);
    await call(o.w, 'POST', '/embeddings/configure', '/embeddings/configure', { provider: 'builtin', dimensions: 8, force: true });
    const v = await mk(o.w, 'Concept', 'Difference engine');
    await call(o.w, 'PUT', `/node/${v}/embedding`, '/node/{uid}/embedding', { vector: [1, 0, 0, 0, 0, 0, 0, 0.5] });
    await call(o.w, 'GET', `/node/${v}/embedding`, '/node/{uid}/embedding');
    await call(o.w, 'POST', '/embeddings/search', '/embeddings/search', { vector: [1, 0, 0, 0, 0, 0, 0, 0.4], k: 3 });
    await call(o.w, 'POST', '/embeddings/search-text', '/embeddings/search-text', { text: 'difference engine', k: 3 });
    await call(o.w, 'DELETE', `/node/${v}/embedding`, '/node/{uid}/embedding');
    await call(o.w, 'POST', '/ingest/embed-all', '/ingest/embed-all', {}, 202);
    await call(w, 'GET', '/export?include_tombstoned=true', '/export');
    const snapshot = (await w.get('/export')).body;
    await call(o.w, 'POST', '/import', '/import', snapshot);
    await call(o.w, 'POST', '/purge', '/purge', {});
    await call(o.w, 'POST', '/decay', '/decay', {}, 200, 'real');
    await call(o.w, 'POST', '/clear', '/clear', {});

    expect(failures).toEqual([]);
    const ops = Object.entries<any>(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((op) => COVERED.some((re) => re.test(op)));
    expect(ops.filter((op) => !checked.has(op))).toEqual([]);
  });
});
