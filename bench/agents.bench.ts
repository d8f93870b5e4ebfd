import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { startServer } from './support/server';

const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 200);

function pct(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 100) / 100;
}

/**
 * The agent runtime's own cost per model step: sequential one-step runs (`message` with
 * `wait:true`, a local scripted model answering at once), minus the same model call made
 * directly. What is left is HTTP in and out, the durable job, the events and the waits.
 */
export async function run(): Promise<Record<string, number>> {
  const llm = await ScriptedOpenAIChatServer.start({ apiKey: 'bench', defaultReply: () => ({ type: 'text', text: 'ok', usage: { input: 10, output: 2 } }) });
  const server = await startServer({ STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'bench', STRATA_LLM_MODEL: 'scripted' });
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const post = async (p: string, body: unknown) => {
    const r = await fetch(server.url + p, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await r.json()) as Record<string, any>;
    if (r.status >= 300) throw new Error(`${p}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const agent = await post('/v1/agents', { name: 'bench', daily_credit_budget: 100_000 });
    const session = await post('/v1/agents/sessions', { agent_id: agent.id });
    const direct: number[] = [];
    const body = { model: 'scripted', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, stream: true, stream_options: { include_usage: true } };
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const r = await fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer bench', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await r.text();
      direct.push(performance.now() - t0);
    }
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const r = await post(`/v1/agents/sessions/${session.id}/message`, { content: `message ${i}`, wait: true, wait_timeout_s: 60 });
      if (r.run?.status !== 'completed') throw new Error(`run ${i} ended ${JSON.stringify(r.run ?? r)}`);
      runs.push(performance.now() - t0);
    }
    direct.sort((a, b) => a - b);
    runs.sort((a, b) => a - b);
    return {
      run_p50_ms: pct(runs, 50),
      run_p99_ms: pct(runs, 99),
      model_direct_p50_ms: pct(direct, 50),
      step_overhead_p50_ms: Math.round((pct(runs, 50) - pct(direct, 50)) * 100) / 100,
    };
  } finally {
    await server.stop();
    await llm.close();
  }
}
