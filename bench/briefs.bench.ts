import { startServer } from './support/server';
import { mulberry32, zipfSampler } from './support/synthetic';
import { client, timeAll, pseudoWord } from './support/http-timing';

/**
 * A Project's living brief (REFERENCE §12) on a realistic Project, end to end over HTTP against
 * the built service, one client in sequence:
 *
 * - one Project admitting 200 Documents × 20 Chunks, each chunk with 3 Claims, a Question and a
 *   Hypothesis extracted from it (anchored selectors): 20,000 admitted nodes, with Supports and
 *   Contradicts edges among them, written in the shapes of the ingestion pipeline;
 * - structural regeneration p50/p99 (`force:true`: every call loads the admitted sources,
 *   generates, diffs and appends a version);
 * - `GET /projects/{uid}/brief` p50/p99 (the state recomputes the fingerprint of the sources);
 * - an admitted Claim edited (PATCH /node) then a regeneration without `force`, p50/p99 of the
 *   pair: the sources changed, so the Project is read and ranked again.
 *
 * Sizes: STRATA_BENCH_BRIEF_DOCS (200), STRATA_BENCH_BRIEF_CHUNKS (20).
 */
export async function run(ctx?: { url: string; token: string }): Promise<Record<string, number>> {
  const own = ctx ? null : await startServer({ STRATA_EMBEDDING_PROVIDER: 'none', STRATA_PLAN_LIMITS: '{"free":{"nodes":null}}' });
  const target = ctx ?? own!;
  try {
    return await measure(target.url, target.token);
  } finally {
    await own?.stop();
  }
}

const DOCS = Number(process.env.STRATA_BENCH_BRIEF_DOCS ?? 200);
const CHUNKS = Number(process.env.STRATA_BENCH_BRIEF_CHUNKS ?? 20);
const KINDS = ['Claim', 'Claim', 'Claim', 'Question', 'Hypothesis'] as const;

async function measure(url: string, token: string): Promise<Record<string, number>> {
  const http = client(url, token);
  const rand = mulberry32(4242);
  const vocab = Array.from({ length: 20_000 }, (_, i) => pseudoWord(i, rand));
  const zipf = zipfSampler(vocab.length, 1.07, rand);
  const words = (n: number) => Array.from({ length: n }, () => vocab[zipf()]).join(' ');
  const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
  const out: Record<string, number> = { documents: DOCS, chunks: DOCS * CHUNKS, admitted_nodes: DOCS * CHUNKS * KINDS.length };

  let lastBatch: string[] = [];
  const project = (await http.post('/node', { node_type: 'Project', label: 'Brief bench', props: { name: 'Brief bench' } })).uid as string;
  for (let d = 0; d < DOCS; d++) {
    const title = `${cap(words(4))} report ${d}`;
    const nodes: Record<string, unknown>[] = [{ ref: 'doc', node_type: 'Document', label: title, props: { title, document_type: 'article', processing_status: 'completed', chunk_count: CHUNKS } }];
    const edges: Record<string, unknown>[] = [{ from_ref: 'doc', to_uid: project, edge_type: 'PartOfProject', props: { admitted_at: 0, admitted_by: 'bench' } }];
    let offset = 0;
    for (let c = 0; c < CHUNKS; c++) {
      const texts = KINDS.map((k) => (k === 'Question' ? `Why does ${words(6)}?` : `${cap(words(9))}`));
      const content = `${cap(words(20))}. ${texts.join('. ')}. ${cap(words(20))}.`;
      const bytes = Buffer.byteLength(content);
      nodes.push({ ref: `c${c}`, node_type: 'Chunk', label: `${title} · chunk ${c}`, props: { content, chunk_type: 'document', chunk_index: c, char_offset_start: offset, char_offset_end: offset + bytes, processing_status: 'completed' } });
      edges.push({ from_ref: `c${c}`, to_ref: 'doc', edge_type: 'ChunkOf', props: { chunk_index: c } });
      KINDS.forEach((k, i) => {
        const ref = `n${c}_${i}`;
        const props = k === 'Claim' ? { content: texts[i] } : k === 'Question' ? { text: texts[i], importance: Math.round(rand() * 100) / 100 } : { statement: texts[i], status: 'proposed' };
        nodes.push({ ref, node_type: k, label: texts[i].slice(0, 200), confidence: Math.round((0.4 + rand() * 0.6) * 100) / 100, props });
        edges.push({ from_ref: ref, to_ref: `c${c}`, edge_type: 'ExtractedFrom', props: { method: 'llm', confidence: 0.6, location: selector(content, texts[i]) } });
      });
      edges.push({ from_ref: `n${c}_1`, to_ref: `n${c}_0`, edge_type: 'Supports' });
      if (c % 3 === 0) edges.push({ from_ref: `n${c}_2`, to_ref: `n${c}_0`, edge_type: 'Contradicts' });
      offset += bytes + 2;
    }
    lastBatch = (await http.post('/batch', { nodes, edges })).node_uids as string[];
  }
  process.stderr.write(`briefs: loaded ${DOCS} documents\n`);

  const regen = await timeAll(Array.from({ length: 20 }, (_, i) => i), () => http.post(`/projects/${project}/brief/regenerate`, { mode: 'structural', force: true }), 3);
  out.regenerate_p50_ms = regen.p50;
  out.regenerate_p99_ms = regen.p99;
  process.stderr.write(`briefs: structural regeneration p50 ${regen.p50} ms\n`);
  const state = await timeAll(Array.from({ length: 100 }, (_, i) => i), () => http.get(`/projects/${project}/brief`));
  out.get_brief_p50_ms = state.p50;
  out.get_brief_p99_ms = state.p99;
  process.stderr.write(`briefs: GET brief p50 ${state.p50} ms\n`);
  // an admitted Claim edited, then a regeneration (not forced): the Project's sources changed
  const claims = Array.from({ length: CHUNKS }, (_, c) => lastBatch[2 + c * (KINDS.length + 1)]);
  let edits = 0;
  const edited = await timeAll(claims, async (uid) => {
    const r = await fetch(`${url}/node/${uid}`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ label: `Edited claim ${edits++}` }) });
    if (r.status !== 200) throw new Error(`PATCH /node: ${r.status}`);
    await http.post(`/projects/${project}/brief/regenerate`, { mode: 'structural' });
  }, 3);
  out.regenerate_after_edit_p50_ms = edited.p50;
  out.regenerate_after_edit_p99_ms = edited.p99;
  process.stderr.write(`briefs: edit + regeneration p50 ${edited.p50} ms\n`);
  return out;
}

function selector(content: string, quote: string): string {
  const at = content.indexOf(quote);
  const start = Buffer.byteLength(content.slice(0, at));
  return JSON.stringify({ exact: quote, prefix: content.slice(Math.max(0, at - 16), at), suffix: content.slice(at + quote.length, at + quote.length + 16), start, end: start + Buffer.byteLength(quote) });
}
