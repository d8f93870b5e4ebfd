import { processCpuMs } from './support/process-cpu';
import { startServer } from './support/server';
import { SlowChatServer } from './support/slow-chat-server';

const FIRST = ['Ada', 'Grace', 'Alan', 'Barbara', 'Edsger', 'Donald', 'Margaret', 'Katherine', 'John', 'Mary', 'Linus', 'Frances'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Liskov', 'Dijkstra', 'Knuth', 'Hamilton', 'Johnson', 'Smith', 'Brown', 'Torvalds', 'Allen'];
const PLACES = ['London', 'Paris', 'Berlin', 'Zurich', 'Boston', 'Tokyo', 'Madrid', 'Oslo', 'Rome', 'Vienna'];
const ORGS = ['Acme Corporation', 'Globex Inc.', 'Initech Ltd', 'University of Cambridge', 'Bank of England', 'Umbrella Corporation'];
const TOPICS = ['compiler design', 'memory safety', 'type inference', 'garbage collection', 'query planning', 'network latency', 'storage engines', 'release process'];

/** Deterministic varied prose: people, places, organisations, dates, numbers, questions, hedges. */
export function syntheticArticle(bytes: number): string {
  let seed = 42;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pick = <T>(xs: readonly T[]) => xs[rnd(xs.length)];
  const parts: string[] = [];
  let size = 0;
  for (let p = 0; size < bytes; p++) {
    const who = `${pick(FIRST)} ${pick(LAST)}`;
    const topic = pick(TOPICS);
    const sentences = [
      `${who} joined ${pick(ORGS)} in ${pick(PLACES)} on ${1 + rnd(28)} March ${1950 + rnd(70)}.`,
      `The team measured ${topic} at ${rnd(1000)} units in paragraph ${p}.`,
      `Our goal is to improve ${topic} before the next review.`,
      `Could ${topic} explain the regression seen in ${pick(PLACES)}?`,
      `We hypothesise that ${topic} may dominate the cost of ${pick(TOPICS)}.`,
      `${who} prefers small changes to ${topic}.`,
    ];
    const text = sentences.slice(0, 3 + rnd(4)).join(' ');
    parts.push(text);
    size += Buffer.byteLength(text) + 2;
  }
  return parts.join('\n\n');
}

/**
 * Offline ingestion end to end: a 1 MB document through POST /ingest/document, timed from
 * the request to the job's completion (chunking, extraction, deduplication, one unit of work
 * per chunk, the inline projections), on the built service in its own process.
 */
export async function run(): Promise<Record<string, number>> {
  const withEmbedding = await ingestOneMegabyte({ STRATA_LLM_PROVIDER: 'offline' });
  // the same without automatic embedding of every new node, to tell the pipeline's cost from the embedder's
  const without = await ingestOneMegabyte({ STRATA_LLM_PROVIDER: 'offline', STRATA_EMBEDDING_PROVIDER: 'none' });
  const model = await ingestWithSlowModel();
  return {
    ...withEmbedding,
    offline_no_embedding_mb_per_s: without.offline_mb_per_s,
    offline_no_embedding_seconds: without.offline_seconds,
    ...('offline_service_cpu_seconds' in without ? { offline_no_embedding_service_cpu_seconds: without.offline_service_cpu_seconds } : {}),
    ...model,
  };
}

const MODEL_DELAY_MS = 200;
const MODEL_CONCURRENCY = 4;
const MODEL_LAYERS = ['reality', 'epistemic'];

/**
 * A 40-chunk document through a chat model that answers every call in 200 ms (an
 * OpenAI-compatible server on loopback): the best the pipeline can do is
 * chunks × passes × 0.2 s / STRATA_LLM_CONCURRENCY; the goal is to stay within 1.2× that.
 */
async function ingestWithSlowModel(): Promise<Record<string, number>> {
  const llm = await SlowChatServer.start(MODEL_DELAY_MS);
  const server = await startServer({
    STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'bench-key', STRATA_LLM_MODEL: 'bench',
    STRATA_LLM_CONCURRENCY: String(MODEL_CONCURRENCY), STRATA_EMBEDDING_PROVIDER: 'none',
  });
  try {
    // 40 parts of ~390 characters, 100-token (≈ 400-character) chunks without overlap: one part a chunk
    const filler = 'The committee reviewed the plan and noted the open questions about cost and timing for the next phase of the work. ';
    const content = Array.from({ length: 40 }, (_, i) => `Part ${i}. ${filler.repeat(3)}`.slice(0, 390)).join('\n\n');
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const cpu0 = processCpuMs(server.child.pid);
    const t0 = performance.now();
    const res = await fetch(`${server.url}/ingest/document`, { method: 'POST', headers, body: JSON.stringify({ content, title: 'Model bench', layers: MODEL_LAYERS, chunk_size: 100, chunk_overlap: 0 }) });
    if (res.status !== 202) throw new Error(`/ingest/document answered ${res.status}: ${await res.text()}`);
    const { job_id } = (await res.json()) as { job_id: string };
    let job: { status: string; progress: { total_chunks: number }; error: string | null };
    for (;;) {
      job = (await (await fetch(`${server.url}/jobs/${job_id}`, { headers })).json()) as typeof job;
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = processCpuMs(server.child.pid);
    if (job.status !== 'completed') throw new Error(`the model ingestion job ${job.status}: ${job.error}`);
    const chunks = job.progress.total_chunks;
    const ideal = (chunks * MODEL_LAYERS.length * MODEL_DELAY_MS) / 1000 / MODEL_CONCURRENCY;
    return {
      model_chunks: chunks,
      model_calls: llm.requests,
      model_max_in_flight: llm.maxInFlight,
      model_seconds: Math.round(seconds * 100) / 100,
      model_ideal_seconds: Math.round(ideal * 100) / 100,
      model_vs_ideal: Math.round((seconds / ideal) * 100) / 100,
      // the service's own CPU over the run: under load the ratio above follows the machine, this much less
      ...(cpu0 !== null && cpu1 !== null ? { model_service_cpu_seconds: Math.round(cpu1 - cpu0) / 1000 } : {}),
    };
  } finally {
    await server.stop();
    await llm.close();
  }
}

async function ingestOneMegabyte(env: Record<string, string>): Promise<Record<string, number>> {
  const server = await startServer(env);
  try {
    const content = syntheticArticle(1024 * 1024);
    const mb = Buffer.byteLength(content) / (1024 * 1024);
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const cpu0 = processCpuMs(server.child.pid);
    const t0 = performance.now();
    const res = await fetch(`${server.url}/ingest/document`, { method: 'POST', headers, body: JSON.stringify({ content, title: 'Bench' }) });
    if (res.status !== 202) throw new Error(`/ingest/document answered ${res.status}: ${await res.text()}`);
    const { job_id } = (await res.json()) as { job_id: string };
    let job: { status: string; progress: { total_chunks: number }; result: { nodes_created: number } | null; error: string | null };
    for (;;) {
      job = (await (await fetch(`${server.url}/jobs/${job_id}`, { headers })).json()) as typeof job;
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = processCpuMs(server.child.pid);
    if (job.status !== 'completed') throw new Error(`the ingestion job ${job.status}: ${job.error}`);
    // the service's CPU for the document: on a loaded machine the wall time says how busy the
    // machine was, the CPU time what the ingestion costs (MB per CPU second is the rate unloaded)
    const cpu = cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / 1000 : null;
    return {
      offline_mb_per_s: Math.round((mb / seconds) * 100) / 100,
      offline_seconds: Math.round(seconds * 100) / 100,
      ...(cpu !== null ? { offline_service_cpu_seconds: Math.round(cpu * 100) / 100, offline_mb_per_cpu_s: Math.round((mb / cpu) * 1000) / 1000 } : {}),
      offline_chunks: job.progress.total_chunks,
      offline_nodes_created: job.result?.nodes_created ?? 0,
    };
  } finally {
    await server.stop();
  }
}
