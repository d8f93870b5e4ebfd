import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * `npm run bench`: runs every benchmark once on the embedded default, prints a table of the
 * figures beside their targets, and writes `bench/results/latest.json`. `BENCH_ONLY=core,auth`
 * runs a subset; `BENCH_SECONDS` sets the load duration per measurement.
 */
interface Target {
  metric: string;
  label: string;
  target: string;
  ok: (v: number) => boolean;
}

const TARGETS: Target[] = [
  { metric: 'core.get_node_vs_bare_pct', label: 'GET /node/{uid} vs bare Fastify (%)', target: '≥ 40', ok: (v) => v >= 40 },
  { metric: 'core.post_node_rps', label: 'POST /node, 32 clients (req/s)', target: '≥ 3000', ok: (v) => v >= 3000 },
  { metric: 'core.post_node_p99_ms', label: 'POST /node p99 (ms)', target: '< 25', ok: (v) => v < 25 },
  { metric: 'core.batch_objects_per_s', label: 'POST /batch objects/s', target: '≥ 25000', ok: (v) => v >= 25000 },
  { metric: 'rebuild.graph_events_per_s', label: 'rebuild, graph projection (events/s)', target: '≥ 100000', ok: (v) => v >= 100000 },
  { metric: 'rebuild.with_text_events_per_s', label: 'rebuild, graph + text index (events/s)', target: '≥ 30000', ok: (v) => v >= 30000 },
  { metric: 'retrieval.search_p50_ms', label: '/search p50 on 100k nodes (ms)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'retrieval.vector_recall_at_10', label: 'vector recall@10 (384 d)', target: '≥ 0.95', ok: (v) => v >= 0.95 },
  { metric: 'retrieval.vector_p50_ms', label: 'vector search p50 (ms)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'retrieval.neighborhood_p50_ms', label: 'neighborhood depth 2, 1M edges, p50 (ms)', target: '< 10', ok: (v) => v < 10 },
  { metric: 'retrieval.hybrid_p50_ms', label: 'hybrid /retrieve p50 (ms)', target: '< 15', ok: (v) => v < 15 },
  { metric: 'context.context_p50_ms', label: '/retrieve/context p50, 200 docs × 20 chunks (ms)', target: '< 50', ok: (v) => v < 50 },
  { metric: 'context.context_p99_ms', label: '/retrieve/context p99 (ms)', target: '< 150', ok: (v) => v < 150 },
  { metric: 'cognitive.argument_rps', label: '/epistemic/argument, 32 clients (req/s)', target: '≥ 1500', ok: (v) => v >= 1500 },
  { metric: 'ingestion.offline_mb_per_s', label: 'offline ingestion of a 1 MB document (MB/s)', target: '≥ 1', ok: (v) => v >= 1 },
  { metric: 'ingestion.model_vs_ideal', label: '40 chunks through a 200 ms model, vs chunks × passes × 0.2 s / concurrency', target: '≤ 1.2', ok: (v) => v <= 1.2 },
  { metric: 'mcp.tools_list_p50_ms', label: 'POST /mcp tools/list p50 (ms)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'mcp.retrieve_overhead_fine_pair_median_ms', label: 'strata_retrieve over /mcp minus POST /retrieve, median of alternating pairs (ms)', target: '< 1', ok: (v) => v < 1 },
  { metric: 'cognitive.argument_p99_ms', label: '/epistemic/argument p99 (ms)', target: '< 40', ok: (v) => v < 40 },
  { metric: 'ontology.create_objects_per_s', label: 'authored object create, 32 clients (objects/s)', target: '≥ 2000', ok: (v) => v >= 2000 },
  { metric: 'ontology.create_p99_ms', label: 'authored object create p99 (ms)', target: '< 40', ok: (v) => v < 40 },
  { metric: 'ontology.search_p50_ms', label: '/ontology/objects/search p50, 50k objects (ms)', target: '< 10', ok: (v) => v < 10 },
  { metric: 'briefs.regenerate_p50_ms', label: 'structural brief regeneration, 200 docs / 20k nodes, p50 (ms)', target: '< 500', ok: (v) => v < 500 },
  { metric: 'briefs.get_brief_p50_ms', label: 'GET /projects/{uid}/brief, 20k nodes, p50 (ms)', target: '< 10', ok: (v) => v < 10 },
  { metric: 'policies.node_overhead_pct', label: 'POST /node with 100 published policies vs none (% slower)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'policies.gate_overhead_pct_of_post_node_cpu', label: 'policy gate alone, in process, 100 published policies vs none, as a share of POST /node CPU (%)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'policies.argument_overhead_pct', label: '/epistemic/argument with 100 published policies vs none (% slower)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'audit.page_p50_ms', label: 'governance audit page over 1M events, p50 (ms)', target: '< 20', ok: (v) => v < 20 },
  { metric: 'agents.step_overhead_p50_ms', label: 'agent run of one model step minus the model call, p50 (ms)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'agents.sse_delivery_p99_ms', label: '100 session-stream subscribers (10 sessions × 10), message.user delivery after the POST is answered, p99 (ms)', target: '< 50', ok: (v) => v < 50 },
  { metric: 'agents.sse_events_missing', label: 'session-stream events a subscriber missed (of 100 × 20 runs × 5)', target: '= 0', ok: (v) => v === 0 },
  { metric: 'operability.get_node_overhead_pct', label: 'metrics + request log cost on GET /node/{uid} (%)', target: '< 3', ok: (v) => v < 3 },
  { metric: 'operability.post_node_overhead_pct', label: 'metrics + request log cost on POST /node (%)', target: '< 3', ok: (v) => v < 3 },
  { metric: 'search.ties_start_search_p50_ms', label: '/search p50, 10k nodes, heavy ties (ms)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'search.ties_end_search_p50_ms', label: '/search p50, 100k nodes, heavy ties (ms)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'search.ties_end_search_p99_ms', label: '/search p99, 100k nodes, heavy ties (ms)', target: '< 20', ok: (v) => v < 20 },
  { metric: 'search.mail_search_p50_ms', label: '/search p50, 100k mail paragraphs (ms)', target: '< 5', ok: (v) => v < 5 },
  { metric: 'search.mail_search_p99_ms', label: '/search p99, 100k mail paragraphs (ms)', target: '< 20', ok: (v) => v < 20 },
  { metric: 'search.mail_context_p95_ms', label: '/retrieve/context p95, 100k mail paragraphs (ms)', target: '< 25', ok: (v) => v < 25 },
  { metric: 'search-1m.mail_search_p50_ms', label: '/search p50, 1M mail paragraphs (ms)', target: '< 15', ok: (v) => v < 15 },
  { metric: 'knowledge-health.summary_p50_ms', label: 'GET /v1/knowledge-health/summary, 20k nodes, p50 (ms)', target: '< 250', ok: (v) => v < 250 },
  { metric: 'knowledge-health.exceptions_p50_ms', label: 'GET /v1/knowledge-health/exceptions, 20k nodes, p50 (ms)', target: '< 250', ok: (v) => v < 250 },
  { metric: 'ontology.query_depth2_p50_ms', label: '/ontology/query depth 2 p50, 50k objects (ms)', target: '< 25', ok: (v) => v < 25 },
];

const SUITES = ['core', 'auth', 'cognitive', 'retrieval', 'context', 'rebuild', 'text-index', 'vector-index', 'ontology', 'ingestion', 'mcp', 'space-scope', 'briefs', 'policies', 'audit', 'agents', 'operability', 'search', 'search-1m', 'knowledge-health'];
/** Suites too long for the default run: only when BENCH_ONLY names them. */
const OPT_IN = new Set(['search-1m']);

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
  const results: Record<string, Record<string, number> | { error: string }> = {};
  for (const suite of SUITES) {
    if (only ? !only.includes(suite) : OPT_IN.has(suite)) continue;
    const file = path.join(__dirname, `${suite}.bench.js`);
    if (!fs.existsSync(file)) continue;
    process.stderr.write(`bench: ${suite}…\n`);
    const t0 = Date.now();
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(file) as { run: (ctx?: unknown) => Promise<Record<string, number>> };
      results[suite] = await mod.run();
    } catch (err) {
      // undici's "fetch failed" says nothing until its cause (refused, reset, timeout) is named
      const cause = (err as Error & { cause?: Error }).cause;
      results[suite] = { error: cause ? `${(err as Error).message}: ${cause.message}` : (err as Error).message };
      process.stderr.write(`bench: ${suite} failed: ${(err as Error).stack ?? err}${cause ? `\ncaused by ${cause.stack ?? cause}` : ''}\n`);
    }
    process.stderr.write(`bench: ${suite} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const outDir = path.resolve(__dirname, '..', '..', 'bench', 'results');
  const latestFile = path.join(outDir, 'latest.json');
  // a partial run (BENCH_ONLY) updates its suites and keeps the others' last figures
  if (only && fs.existsSync(latestFile)) {
    const previous = JSON.parse(fs.readFileSync(latestFile, 'utf8')) as { results?: typeof results };
    for (const [suite, r] of Object.entries(previous.results ?? {})) if (!(suite in results)) results[suite] = r;
  }
  const flat: Record<string, number> = {};
  for (const [suite, r] of Object.entries(results)) for (const [k, v] of Object.entries(r)) if (typeof v === 'number') flat[`${suite}.${k}`] = v;
  const rows = TARGETS.filter((t) => flat[t.metric] !== undefined).map(
    (t) => `| ${t.label} | ${fmt(flat[t.metric])} | ${t.target} | ${t.ok(flat[t.metric]) ? 'met' : 'missed'} |`,
  );
  const table = ['| measure | result | target | |', '|---|---:|---:|---|', ...rows].join('\n');
  fs.mkdirSync(outDir, { recursive: true });
  const record = { at: new Date().toISOString(), node: process.version, cpus: require('node:os').cpus().length, only: only ?? null, results };
  fs.writeFileSync(latestFile, JSON.stringify(record, null, 2) + '\n');
  fs.writeFileSync(path.join(outDir, 'latest.md'), table + '\n');
  process.stdout.write(table + '\n\nall figures:\n' + JSON.stringify(results, null, 2) + '\n');
}

function fmt(v: number): string {
  return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(v < 1 ? 3 : 2);
}

void main();
