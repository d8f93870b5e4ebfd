import { load } from './support/load';
import { startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const RETRIEVE_ARGS = { action: 'text', query: 'meridian relay', limit: 10 };

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
    return {
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
