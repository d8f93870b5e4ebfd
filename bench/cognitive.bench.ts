import { load } from './support/load';
import { startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/** The issue-5 request: a claim, three evidence items and a warrant (5 nodes, 4 edges). */
export const ARGUMENT_BODY = {
  claim: { label: 'Regular sleep improves recall', confidence: 0.7, props: { claim_type: 'causal' } },
  evidence: [
    { label: 'Sleep-deprived cohort recalled 20% less', props: { evidence_type: 'empirical', sample_size: 120 } },
    { label: 'Nap group outperformed controls', props: { evidence_type: 'empirical', sample_size: 48 } },
    { label: 'Meta-analysis of 31 studies', props: { evidence_type: 'statistical' } },
  ],
  warrant: { label: 'Controlled studies that replicate support causal claims' },
  agent_id: 'bench',
};

/**
 * POST /epistemic/argument under 32 concurrent clients for ~5 s (BENCH_SECONDS). With a
 * `{url, token}` it loads that service; without one it starts the built service in its own
 * process on a fresh data dir.
 */
export async function run(ctx?: { url: string; token: string }): Promise<Record<string, number>> {
  const server = ctx ? null : await startServer();
  const target = ctx ?? { url: server!.url, token: server!.token };
  try {
    const probe = await fetch(`${target.url}/epistemic/argument`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ARGUMENT_BODY),
    });
    if (probe.status !== 201) throw new Error(`/epistemic/argument answered ${probe.status}: ${await probe.text()}`);
    const r = await load({ url: `${target.url}/epistemic/argument`, method: 'POST', token: target.token, body: ARGUMENT_BODY, connections: 32, seconds: SECONDS });
    return { argument_rps: Math.round(r.rps), argument_p50_ms: r.p50_ms, argument_p99_ms: r.p99_ms, argument_errors: r.errors };
  } finally {
    await server?.stop();
  }
}
