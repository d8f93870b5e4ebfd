import * as http from 'node:http';
import { load } from './support/load';
import { startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const RETRIEVE_ARGS = { action: 'text', query: 'meridian relay', limit: 10 };
/** Pairs of the fine-grained leg: warm-up pairs first, then the measured ones. */
const WARM_PAIRS = Number(process.env.BENCH_MCP_WARM_PAIRS ?? 1000);
const PAIRS = Number(process.env.BENCH_MCP_PAIRS ?? 4000);
/** The measured pairs are also cut in blocks, each with its own median: their spread shows how steady the figure is. */
const BLOCKS = 4;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const median = (xs: number[]) => quantile([...xs].sort((x, y) => x - y), 0.5);
const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * One POST over a kept-alive connection with node:http, timed with `performance.now()` until
 * the last byte: `fetch` costs the client a few hundred microseconds a request, which only
 * adds noise to a difference under a millisecond.
 */
function poster(target: { url: string; token: string }): (path: string, body: unknown, extra: Record<string, string>) => Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(target.url);
  return (path, body, extra) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const t0 = performance.now();
      const req = http.request(
        { agent, hostname, port, path, method: 'POST', headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...extra } },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => {
            const ms = performance.now() - t0;
            if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}`));
            else resolve(ms);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

/**
 * The same retrieval, alternately through `POST /retrieve` and through `/mcp`, one request at a
 * time: autocannon reports whole milliseconds, too coarse for a difference under one. The
 * order flips every pair so a drift in the machine's load weighs on both legs alike; the
 * overhead is the median of the pairs' differences (in pair order, before any sorting).
 */
async function alternating(target: { url: string; token: string }, call: unknown): Promise<{ http: number[]; mcp: number[]; diff: number[] }> {
  const send = poster(target);
  const http: number[] = [];
  const mcp: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < WARM_PAIRS + PAIRS; i++) {
    let a: number;
    let b: number;
    if (i % 2 === 0) {
      a = await send('/retrieve', RETRIEVE_ARGS, {});
      b = await send('/mcp', call, MCP_HEADERS);
    } else {
      b = await send('/mcp', call, MCP_HEADERS);
      a = await send('/retrieve', RETRIEVE_ARGS, {});
    }
    if (i < WARM_PAIRS) continue;
    http.push(a);
    mcp.push(b);
    diff.push(b - a);
  }
  return { http, mcp, diff };
}

/**
 * Strata's MCP server: `tools/list` latency, and what a `strata_retrieve` call costs over the
 * same route called directly (one client each, so the figures are latencies, not queueing).
 */
export async function run(ctx?: { url: string; token: string }): Promise<Record<string, number>> {
  const server = ctx ? null : await startServer();
  const target = ctx ?? { url: server!.url, token: server!.token };
  try {
    const nodes = Array.from({ length: 1000 }, (_, i) => ({ label: `${i % 7 === 0 ? 'meridian relay' : 'harbor lantern'} note ${i}`, node_type: 'Observation', props: { content: `observation ${i}` } }));
    const seeded = await fetch(`${target.url}/batch`, { method: 'POST', headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nodes }) });
    if (seeded.status !== 201) throw new Error(`/batch answered ${seeded.status}: ${await seeded.text()}`);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'strata_retrieve', arguments: RETRIEVE_ARGS } };
    const probe = await fetch(`${target.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', ...MCP_HEADERS }, body: JSON.stringify(call) });
    const probeBody = (await probe.json()) as { result?: { isError?: boolean } };
    if (probe.status !== 200 || !probeBody.result || probeBody.result.isError) throw new Error(`/mcp tools/call answered ${probe.status}: ${JSON.stringify(probeBody)}`);

    // warm both paths first: the first seconds of a fresh process measure the JIT, not the route
    for (const body of [RETRIEVE_ARGS, call]) await load({ url: `${target.url}${body === call ? '/mcp' : '/retrieve'}`, method: 'POST', token: target.token, headers: MCP_HEADERS, body, connections: 1, seconds: 2 });
    const list = await load({ url: `${target.url}/mcp`, method: 'POST', token: target.token, headers: MCP_HEADERS, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, connections: 1, seconds: SECONDS });
    const direct = await load({ url: `${target.url}/retrieve`, method: 'POST', token: target.token, body: RETRIEVE_ARGS, connections: 1, seconds: SECONDS });
    const viaMcp = await load({ url: `${target.url}/mcp`, method: 'POST', token: target.token, headers: MCP_HEADERS, body: call, connections: 1, seconds: SECONDS });
    const fine = await alternating(target, call);
    const block = Math.floor(fine.diff.length / BLOCKS);
    const blockMedians = Array.from({ length: BLOCKS }, (_, b) => median(fine.diff.slice(b * block, (b + 1) * block)));
    const httpP50 = median(fine.http);
    const overhead = median(fine.diff);
    return {
      retrieve_http_fine_p50_ms: round3(httpP50),
      retrieve_mcp_fine_p50_ms: round3(median(fine.mcp)),
      retrieve_overhead_fine_p50_ms: round3(median(fine.mcp) - httpP50),
      retrieve_overhead_fine_pair_median_ms: round3(overhead),
      // under load both legs slow down together: the overhead as a share of the route holds better
      retrieve_overhead_fine_vs_route_pct: Math.round((overhead / httpP50) * 1000) / 10,
      retrieve_overhead_fine_block_median_min_ms: round3(Math.min(...blockMedians)),
      retrieve_overhead_fine_block_median_max_ms: round3(Math.max(...blockMedians)),
      retrieve_http_fine_p90_ms: round3(quantile([...fine.http].sort((x, y) => x - y), 0.9)),
      retrieve_mcp_fine_p90_ms: round3(quantile([...fine.mcp].sort((x, y) => x - y), 0.9)),
      tools_list_p50_ms: list.p50_ms,
      tools_list_p99_ms: list.p99_ms,
      retrieve_http_p50_ms: direct.p50_ms,
      retrieve_mcp_p50_ms: viaMcp.p50_ms,
      retrieve_overhead_p50_ms: Math.round((viaMcp.p50_ms - direct.p50_ms) * 100) / 100,
      errors: list.errors + direct.errors + viaMcp.errors,
    };
  } finally {
    await server?.stop();
  }
}
