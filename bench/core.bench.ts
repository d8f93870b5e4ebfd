import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { load } from './support/load';
import { processCpuMs } from './support/process-cpu';
import { processWrittenBytes } from './support/process-io';
import { BenchServer, freePort, startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/**
 * Issue 2's core figures on the embedded default, against the built service in its own
 * process: GET /node/{uid} vs a bare Fastify server returning the same JSON, POST /node under
 * 32 concurrent clients, and POST /batch objects per second end to end. Each also gives the
 * service's CPU time per request (per object for /batch): on a shared 2-core machine it moves
 * far less with other work than the throughput does, so before/after comparisons read it.
 * /batch also gives the bytes the service wrote per 1,000 objects.
 */
export async function run(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const server = await startServer();
  try {
    await getNode(server, out);
    await postNode(server, out);
    await postBatch(server, out);
  } finally {
    await server.stop();
  }
  return out;
}

async function getNode(s: BenchServer, out: Record<string, number>): Promise<void> {
  const created = await (
    await fetch(`${s.url}/node`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'Benchmark node', node_type: 'Claim', props: { content: 'a claim read many times' } }),
    })
  ).text();
  const uid = JSON.parse(created).uid as string;
  const port = await freePort();
  const bare = spawn(process.execPath, [path.join(__dirname, 'support', 'bare-fastify.js'), String(port), created], { stdio: 'ignore' });
  try {
    await waitForPort(`http://127.0.0.1:${port}/node/${uid}`);
    const base = await load({ url: `http://127.0.0.1:${port}/node/${uid}`, connections: 32, seconds: SECONDS });
    const cpu0 = processCpuMs(s.child.pid);
    const ours = await load({ url: `${s.url}/node/${uid}`, token: s.token, connections: 32, seconds: SECONDS });
    out.get_node_cpu_ms_per_req = cpuPer(s, cpu0, ours.requests);
    out.get_node_rps = Math.round(ours.rps);
    out.get_node_p99_ms = ours.p99_ms;
    out.bare_fastify_rps = Math.round(base.rps);
    out.get_node_vs_bare_pct = Math.round((1000 * ours.rps) / base.rps) / 10;
    out.get_node_errors = ours.errors;
  } finally {
    bare.kill();
  }
}

async function postNode(s: BenchServer, out: Record<string, number>): Promise<void> {
  const cpu0 = processCpuMs(s.child.pid);
  const r = await load({
    url: `${s.url}/node`,
    method: 'POST',
    token: s.token,
    body: { label: 'Load test goal', node_type: 'Goal', props: { description: 'written under load', priority: 'high' } },
    connections: 32,
    seconds: SECONDS,
  });
  out.post_node_rps = Math.round(r.rps);
  out.post_node_p50_ms = r.p50_ms;
  out.post_node_p99_ms = r.p99_ms;
  out.post_node_errors = r.errors;
  out.post_node_cpu_ms_per_req = cpuPer(s, cpu0, r.requests);
}

async function postBatch(s: BenchServer, out: Record<string, number>): Promise<void> {
  // 1000 nodes and 999 edges chaining them: the largest node batch the API takes
  const nodes = Array.from({ length: 1000 }, (_, i) => ({ ref: `n${i}`, label: `Batch claim ${i}`, node_type: 'Claim', props: { content: `statement number ${i}` } }));
  const edges = Array.from({ length: 999 }, (_, i) => ({ from_ref: `n${i + 1}`, to_ref: `n${i}`, edge_type: 'Supports' }));
  const cpu0 = processCpuMs(s.child.pid);
  const written0 = processWrittenBytes(s.child.pid);
  const r = await load({ url: `${s.url}/batch`, method: 'POST', token: s.token, body: { nodes, edges }, connections: 2, seconds: SECONDS });
  const objects = r.requests * (nodes.length + edges.length);
  out.batch_cpu_us_per_object = Math.round(1000 * cpuPer(s, cpu0, objects));
  // what the service wrote for them (WAL frames of both databases and their checkpoint copies)
  const written1 = processWrittenBytes(s.child.pid);
  if (written0 !== null && written1 !== null && objects > 0) out.batch_mb_written_per_1000_objects = Math.round(((written1 - written0) / objects) * 1000 / 1e4) / 100;
  out.batch_requests_per_s = Math.round(r.rps * 100) / 100;
  out.batch_objects_per_s = Math.round(r.rps * (nodes.length + edges.length));
  out.batch_p99_ms = r.p99_ms;
  out.batch_errors = r.errors;
}

/** The service's CPU time (ms) per unit of work since `cpu0`; -1 where /proc is missing. */
function cpuPer(s: BenchServer, cpu0: number | null, units: number): number {
  const cpu1 = processCpuMs(s.child.pid);
  if (cpu0 === null || cpu1 === null || units <= 0) return -1;
  return Math.round((1000 * (cpu1 - cpu0)) / units) / 1000;
}

async function waitForPort(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

