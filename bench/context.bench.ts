import { startServer } from './support/server';
import { mulberry32, zipfSampler } from './support/synthetic';
import { client, timeAll, pseudoWord } from './support/http-timing';

/**
 * `POST /retrieve/context` (and the synthesis signals) on a realistic ingested corpus, end to
 * end over HTTP against the built service, one client in sequence:
 *
 * - 200 Documents × 20 Chunks (~600 bytes each), each chunk with an extracted Claim and
 *   Concept (anchored selectors) and a mention of one of 400 shared Persons (Claim → Person
 *   About), written in the shapes of the ingestion pipeline; half the Documents admitted by
 *   one Project; embedded by the built-in lexical embedder as they land;
 * - `/retrieve/context` p50/p99: defaults (10 nodes, 3 articles); with 5 chunks and 5
 *   expansion slots; confined to the Project (`project_uid`);
 * - `GET /synthesis/signals/{project}` p50.
 *
 * Sizes: STRATA_BENCH_CONTEXT_DOCS (200), STRATA_BENCH_CONTEXT_CHUNKS (20).
 */
export async function run(ctx?: { url: string; token: string }): Promise<Record<string, number>> {
  const own = ctx ? null : await startServer();
  const target = ctx ?? own!;
  try {
    return await measure(target.url, target.token);
  } finally {
    await own?.stop();
  }
}

const DOCS = Number(process.env.STRATA_BENCH_CONTEXT_DOCS ?? 200);
const CHUNKS = Number(process.env.STRATA_BENCH_CONTEXT_CHUNKS ?? 20);
const PERSONS = 400;

async function measure(url: string, token: string): Promise<Record<string, number>> {
  const http = client(url, token);
  const rand = mulberry32(9001);
  const vocab = Array.from({ length: 20_000 }, (_, i) => pseudoWord(i, rand));
  const zipf = zipfSampler(vocab.length, 1.07, rand);
  const words = (n: number) => Array.from({ length: n }, () => vocab[zipf()]).join(' ');
  const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
  const out: Record<string, number> = { documents: DOCS, chunks: DOCS * CHUNKS };

  const project = (await http.post('/node', { node_type: 'Project', label: 'Bench project', props: { name: 'Bench project', description: 'half the corpus' } })).uid as string;
  const personNames = Array.from({ length: PERSONS }, () => `${cap(vocab[zipf()])} ${cap(vocab[zipf()])}`);
  const persons = (await http.post('/batch', { nodes: personNames.map((label) => ({ node_type: 'Person', label })) })).node_uids as string[];

  const t0 = performance.now();
  let objects = 0;
  for (let d = 0; d < DOCS; d++) {
    const title = `${cap(words(4))} report ${d}`;
    const nodes: Record<string, unknown>[] = [];
    const edges: Record<string, unknown>[] = [];
    let offset = 0;
    const pages: { page: number; char_start: number }[] = [];
    for (let c = 0; c < CHUNKS; c++) {
      const p = Math.floor(rand() * PERSONS);
      const claim = `${personNames[p]} ${words(8)}`;
      const concept = words(2);
      const content = `${cap(words(25))}. ${claim}. ${cap(words(20))} ${concept} ${words(15)}. ${cap(words(30))}.`;
      const bytes = Buffer.byteLength(content);
      if (c % 4 === 0) pages.push({ page: c / 4 + 1, char_start: offset });
      nodes.push({ ref: `c${c}`, node_type: 'Chunk', label: `${title} · chunk ${c}`, props: { content, chunk_type: 'document', chunk_index: c, char_offset_start: offset, char_offset_end: offset + bytes, processing_status: 'completed' } });
      nodes.push({ ref: `claim${c}`, node_type: 'Claim', label: claim, confidence: 0.6 });
      nodes.push({ ref: `concept${c}`, node_type: 'Concept', label: concept, confidence: 0.6 });
      edges.push({ from_ref: `c${c}`, to_ref: 'doc', edge_type: 'ChunkOf', props: { chunk_index: c } });
      for (const [ref, quote] of [[`claim${c}`, claim], [`concept${c}`, concept]] as const)
        edges.push({ from_ref: ref, to_ref: `c${c}`, edge_type: 'ExtractedFrom', props: { method: 'llm', confidence: 0.6, location: selector(content, quote) } });
      edges.push({ from_uid: persons[p], to_ref: `c${c}`, edge_type: 'ExtractedFrom', props: { method: 'llm', confidence: 0.6, location: selector(content, personNames[p]) } });
      edges.push({ from_ref: `claim${c}`, to_uid: persons[p], edge_type: 'About', weight: 0.8 });
      offset += bytes + 2;
    }
    nodes.unshift({ ref: 'doc', node_type: 'Document', label: title, props: { title, document_type: 'article', processing_status: 'completed', chunk_count: CHUNKS, content_length: offset, page_offsets: JSON.stringify(pages) } });
    if (d % 2 === 0) edges.push({ from_ref: 'doc', to_uid: project, edge_type: 'PartOfProject', props: { admitted_at: 0, admitted_by: 'bench' } });
    await http.post('/batch', { nodes, edges });
    objects += nodes.length + edges.length;
  }
  out.load_objects_per_s = Math.round(objects / ((performance.now() - t0) / 1000));
  // searches are measured once the vectors caught up
  for (let i = 0; i < 1200; i++) {
    const stats = (await http.get('/stats')) as { embedding_index_backlog?: number };
    if (!stats.embedding_index_backlog) break;
    await new Promise((r) => setTimeout(r, 250));
  }

  process.stderr.write(`context: loaded ${objects} objects\n`);
  const queries = Array.from({ length: 200 }, () => `${personNames[Math.floor(rand() * PERSONS)].split(' ')[0]} ${vocab[50 + Math.floor(rand() * 1000)]}`);
  const plain = await timeAll(queries, (q) => http.post('/retrieve/context', { query: q }));
  out.context_p50_ms = plain.p50;
  out.context_p99_ms = plain.p99;
  process.stderr.write(`context: plain p50 ${plain.p50} ms\n`);
  const rich = await timeAll(queries, (q) => http.post('/retrieve/context', { query: q, chunk_limit: 5, graph_expansion_limit: 5 }));
  out.context_chunks_expansion_p50_ms = rich.p50;
  out.context_chunks_expansion_p99_ms = rich.p99;
  process.stderr.write(`context: chunks + expansion p50 ${rich.p50} ms\n`);
  const confined = await timeAll(queries.slice(0, 60), (q) => http.post('/retrieve/context', { query: q, project_uid: project, chunk_limit: 5 }));
  out.context_project_p50_ms = confined.p50;
  out.context_project_p99_ms = confined.p99;
  process.stderr.write(`context: project p50 ${confined.p50} ms\n`);
  const signals = await timeAll(Array.from({ length: 20 }, () => project), (p) => http.get(`/synthesis/signals/${p}`));
  out.signals_p50_ms = signals.p50;
  return out;
}

function selector(content: string, quote: string): string {
  const at = content.indexOf(quote);
  const start = Buffer.byteLength(content.slice(0, at));
  return JSON.stringify({ exact: quote, prefix: content.slice(Math.max(0, at - 16), at), suffix: content.slice(at + quote.length, at + quote.length + 16), start, end: start + Buffer.byteLength(quote) });
}



