import { load } from './support/load';
import { BenchServer, startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** rounds of (off, on) measured back to back; the best figure of each side is kept */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/**
 * What metrics and the per-request log cost: GET /node/{uid} and POST /node throughput with
 * STRATA_METRICS=off and the log at `error` (no request lines), against STRATA_METRICS=public
 * and the log at `log` (a JSON line per request, written to a pipe the bench drains). Both
 * services run at once, measured in turn, so that the machine's load drifts over both alike.
 */
export async function run(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const off = await startServer({ STRATA_METRICS: 'off', STRATA_LOG_LEVEL: 'error' });
  const on = await startServer({ STRATA_METRICS: 'public', STRATA_LOG_LEVEL: 'log' }, { drainStdout: true });
  try {
    const uid = async (s: BenchServer) =>
      (
        (await (
          await fetch(`${s.url}/node`, {
            method: 'POST',
            headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ label: 'Benchmark node', node_type: 'Claim', props: { content: 'a claim read many times' } }),
          })
        ).json()) as { uid: string }
      ).uid;
    const uids = new Map([
      [off, await uid(off)],
      [on, await uid(on)],
    ]);
    const best = { get_off: 0, get_on: 0, post_off: 0, post_on: 0 };
    const body = { label: 'Load test goal', node_type: 'Goal', props: { description: 'written under load', priority: 'high' } };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [side, s] of [
        ['off', off],
        ['on', on],
      ] as const) {
        const g = await load({ url: `${s.url}/node/${uids.get(s)}`, token: s.token, connections: 32, seconds: SECONDS });
        best[`get_${side}`] = Math.max(best[`get_${side}`], g.rps);
        const p = await load({ url: `${s.url}/node`, method: 'POST', token: s.token, body, connections: 32, seconds: SECONDS });
        best[`post_${side}`] = Math.max(best[`post_${side}`], p.rps);
      }
    }
    out.get_node_rps_off = Math.round(best.get_off);
    out.get_node_rps_on = Math.round(best.get_on);
    out.get_node_overhead_pct = Math.round((1000 * (best.get_off - best.get_on)) / best.get_off) / 10;
    out.post_node_rps_off = Math.round(best.post_off);
    out.post_node_rps_on = Math.round(best.post_on);
    out.post_node_overhead_pct = Math.round((1000 * (best.post_off - best.post_on)) / best.post_off) / 10;
    // the scrape itself, with everything registered and the series of the load above
    const t0 = performance.now();
    const scrape = await fetch(`${on.url}/metrics`);
    await scrape.text();
    out.metrics_scrape_ms = Math.round((performance.now() - t0) * 10) / 10;
  } finally {
    await off.stop();
    await on.stop();
  }
  return out;
}
