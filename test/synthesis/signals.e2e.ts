import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { api, createApiKey } from '../support/http';
import { RetrievalFixture, expectError, mk, startRetrieval } from '../retrieval/retrieval-fixture';
import { SynthesisWorld, seedSynthesisWorld } from './synthesis-world';

const SIGNALS = ['documents', 'entity_bridges', 'claim_hubs', 'ranked_claim_hubs', 'clustered_claim_hubs', 'theory_support_gaps', 'concept_clusters', 'analogy_candidates', 'dialectical_pairs'];

describe('GET /synthesis/signals/{project_uid} (REFERENCE §10)', () => {
  describe('without embeddings: claim clusters grouped by shared target', () => {
    let f: RetrievalFixture;
    let s: SynthesisWorld;
    const get = (path: string) => f.w.get(`/synthesis/signals/${path}`);

    beforeAll(async () => {
      f = await startRetrieval({ clock: new FixedClock(1_780_000_000), embeddingProvider: 'none' });
      s = await seedSynthesisWorld(f.w);
    }, 60_000);
    afterAll(() => f.close());

    it('every signal, with its exact item shape, over the Project’s admitted sources only', async () => {
      const r = await get(s.project);
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(['project_uid', ...SIGNALS]);
      const [d1, d2, d3] = s.docs;
      const n = s.n;
      expect(r.body.project_uid).toBe(s.project);
      expect(r.body.documents).toEqual([
        { uid: d3.document_uid, label: 'A skeptical biography' },
        { uid: d2.document_uid, label: 'Letters to Babbage' },
        { uid: d1.document_uid, label: 'Notes by the translator' },
      ]);
      expect(r.body.entity_bridges).toEqual([{ uid: n.ada, label: 'Ada Lovelace', node_type: 'Person', doc_count: 2 }]);
      // the Claims of the other Project and of the tombstoned Document do not count; nor does the hand-made Babbage
      expect(r.body.claim_hubs).toEqual([{ target_uid: n.ada, target_label: 'Ada Lovelace', target_type: 'Person', claim_count: 3 }]);
      expect(r.body.ranked_claim_hubs).toEqual([
        {
          target_uid: n.ada, target_label: 'Ada Lovelace', target_type: 'Person', claim_count: 3,
          distinct_doc_count: 3, project_doc_count: 3, dialectical_count: 2,
          score: expect.closeTo(0.5 * 1 + 0.3 * (2 / 3) + 0.2 * 1, 12), breadth_score: 1, tension_score: expect.closeTo(2 / 3, 12), density_score: 1,
        },
      ]);
      expect(r.body.clustered_claim_hubs).toEqual([
        {
          cluster_id: 'cluster-1', size: 3, distinct_doc_count: 3, project_doc_count: 3,
          // claims' targets: c1 {Ada, Theory}, c2 {Ada}, c3 {Ada, Hypothesis}: mean Jaccard
          cohesion_score: expect.closeTo((1 / 2 + 1 / 3 + 1 / 2) / 3, 12),
          epistemic_density: expect.closeTo(4 / 3, 12),
          score: expect.closeTo(0.4 * 1 + 0.3 * 1 + 0.2 * ((1 / 2 + 1 / 3 + 1 / 2) / 3) + 0.1 * 1, 12),
          breadth_score: 1, size_score: 1,
          dominant_entity_uid: n.ada, dominant_entity_label: 'Ada Lovelace', dominant_entity_type: 'Person',
          sample_claims: [
            { uid: n.c2, label: 'Ada Lovelace described Bernoulli numbers', source_doc_label: 'Letters to Babbage' },
            { uid: n.c1, label: 'Ada Lovelace wrote the first program for the engine', source_doc_label: 'Notes by the translator' },
            { uid: n.c3, label: 'Babbage wrote the earlier programs, not Lovelace', source_doc_label: 'A skeptical biography' },
          ],
          epistemic_counts: { evidence: 1, arguments: 0, warrants: 0, theories_hypotheses: 2, contradicts_edges: 1 },
        },
      ]);
      expect(r.body.theory_support_gaps).toEqual([{ uid: n.th, label: 'Lovelace was the first programmer', node_type: 'Theory', support_count: 1 }]);
      expect(r.body.concept_clusters).toEqual([{ uid: n.engine1, label: 'analytical engine', doc_count: 3 }]);
      const analogy = (await f.w.get(`/node/${n.analogy}`)).body;
      expect(r.body.analogy_candidates).toEqual([{ uid: n.analogy, label: analogy.label, summary: analogy.summary }]);
      expect(r.body.dialectical_pairs).toEqual([
        { edge_type: 'Contradicts', from_uid: n.c3, from_label: 'Babbage wrote the earlier programs, not Lovelace', to_uid: n.c1, to_label: 'Ada Lovelace wrote the first program for the engine' },
      ]);
    });

    it('signals= picks a subset (others left out); target_types changes the hubs', async () => {
      const r = await get(`${s.project}?signals=dialectical_pairs,documents`);
      expect(Object.keys(r.body)).toEqual(['project_uid', 'documents', 'dialectical_pairs']);
      const concepts = await get(`${s.project}?signals=entity_bridges,claim_hubs&target_types=Concept,Theory`);
      expect(concepts.body.entity_bridges).toEqual([{ uid: s.n.engine1, label: 'analytical engine', node_type: 'Concept', doc_count: 3 }]);
      expect(concepts.body.claim_hubs).toEqual([]);
      expectError(await get(`${s.project}?signals=documents,vibes`), 400, 'invalid_field', 'signals');
      expectError(await get(`${s.project}?target_types=9lives`), 400, 'invalid_field', 'target_types');
    });

    it('the Project is checked first: malformed, unknown, tombstoned, other type, out of scope', async () => {
      expectError(await get('bad%20uid!'), 400, 'invalid_uid', 'project_uid');
      expectError(await get('no-such-project?signals=vibes'), 404, 'not_found', 'project_uid');
      const wrong = await get(`${s.n.ada}?signals=vibes`);
      expectError(wrong, 400, 'wrong_node_type', 'project_uid');
      expect(wrong.body.expected).toEqual(['Project']);
      const gone = await mk(f.w, 'Project', 'Abandoned', { props: { name: 'Abandoned', description: 'x' } });
      await f.w.delete(`/node/${gone}`);
      expectError(await get(gone), 404, 'not_found', 'project_uid');
      const other = api(f.app.url, (await createApiKey(f.app.url, f.jwt, { scopes: ['read'], project_uids: [s.otherProject], name: 'looms' })).key);
      expectError(await other.get(`/synthesis/signals/${s.project}`), 404, 'not_found', 'project_uid');
      const own = await other.get(`/synthesis/signals/${s.otherProject}?signals=documents,claim_hubs`);
      expect(own.body).toEqual({ project_uid: s.otherProject, documents: [{ uid: s.outsideDoc.document_uid, label: 'Loom history' }], claim_hubs: [] });
      // a read-only key may read signals
      expect((await f.ro.get(`/synthesis/signals/${s.project}`)).status).toBe(200);
    });

    it('an empty Project has empty signals', async () => {
      const empty = await mk(f.w, 'Project', 'Empty', { props: { name: 'Empty', description: 'nothing yet' } });
      const r = await get(empty);
      expect(r.body).toEqual({ project_uid: empty, ...Object.fromEntries(SIGNALS.map((k) => [k, []])) });
    });
  });

  describe('with embeddings: Claims clustered by similarity', () => {
    let f: RetrievalFixture;
    let s: SynthesisWorld;
    beforeAll(async () => {
      f = await startRetrieval({ clock: new FixedClock(1_780_000_000) });
      s = await seedSynthesisWorld(f.w);
    }, 60_000);
    afterAll(() => f.close());

    it('clusters project Claims whose vectors are close; a Claim far from the others is in no cluster', async () => {
      const { c1, c2, c3 } = s.n;
      const dim = (await eventually(async () => (await f.w.get(`/node/${c1}/embedding`)).body?.dimension, { what: 'c1 embedded' })) as number;
      const unit = (i: number, j?: number) => Array.from({ length: dim }, (_, k) => (k === i ? 1 : k === j ? 0.2 : 0));
      // client vectors are pinned: automatic embedding never replaces them
      for (const [uid, v] of [[c1, unit(0)], [c2, unit(0, 1)], [c3, unit(5)]] as const) expect((await f.w.put(`/node/${uid}/embedding`, { vector: v })).status).toBe(200);
      const r = await f.w.get(`/synthesis/signals/${s.project}?signals=clustered_claim_hubs`);
      expect(r.status).toBe(200);
      expect(r.body.clustered_claim_hubs).toEqual([
        expect.objectContaining({
          cluster_id: 'cluster-1', size: 2, distinct_doc_count: 2, project_doc_count: 3, breadth_score: 2 / 3, size_score: 1,
          // vectors are kept as 32-bit floats
          cohesion_score: expect.closeTo(1 / Math.sqrt(1.04), 6),
          dominant_entity_uid: s.n.ada,
          epistemic_counts: { evidence: 0, arguments: 0, warrants: 0, theories_hypotheses: 1, contradicts_edges: 1 },
        }),
      ]);
      expect(r.body.clustered_claim_hubs[0].sample_claims.map((c: any) => c.uid).sort()).toEqual([c1, c2].sort());
    });
  });
});
