import { load } from './support/load';
import { startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const RETRIEVE_ARGS = { action: 'text', query: 'meridian relay', limit: 10 };
/** Pairs of the fine-grained leg: warm-up pairs first, then the measured ones. */
const WARM_PAIRS = Number(process.env.BENCH_MCP_WARM_PAIRS ?? 500);
const PAIRS = Number(process.env.BENCH_MCP_PAIRS ?? 2000);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * The same retrieval, alternately through `POST /retrieve` and through `/mcp`, one request at a
 * time, each timed with `performance.now()`: autocannon reports whole milliseconds, too coarse
 * for a difference under one. The order flips every pair so a drift in the machine's load
 * weighs on both legs alike; the overhead is the median of the pairs' differences.
 */
async function alternating(target: { url: string; token: string }, call: unknown): Promise<{ http: number[]; mcp: number[]; diff: number[] }> {
  const send = async (path: string, body: unknown, extra: Record<string, string>): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${target.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', ...extra }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    return ms;
  };
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
  for (const xs of [http, mcp, diff]) xs.sort((x, y) => x - y);
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
    return {
      retrieve_http_fine_p50_ms: round3(quantile(fine.http, 0.5)),
      retrieve_mcp_fine_p50_ms: round3(quantile(fine.mcp, 0.5)),
      retrieve_overhead_fine_p50_ms: round3(quantile(fine.mcp, 0.5) - quantile(fine.http, 0.5)),
      retrieve_overhead_fine_pair_median_ms: round3(quantile(fine.diff, 0.5)),
      retrieve_http_fine_p90_ms: round3(quantile(fine.http, 0.9)),
      retrieve_mcp_fine_p90_ms: round3(quantile(fine.mcp, 0.9)),
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
