import { spawn } from 'node:child_process';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { openSse } from '@strata/live/testing/sse-client';
import { processCpuMs } from './support/process-cpu';
import { startServer } from './support/server';

const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 200);
/** untimed runs first: the service's code is compiled (JIT) before the timed ones */
const WARMUP_RUNS = 50;
/** REFERENCE §16.9 allows 10 streams per session: 100 subscribers are 10 sessions × 10 */
const STREAMS_PER_SESSION = 10;
const STREAM_SESSIONS = 10;
const STREAM_MESSAGES = 20;
const CONCURRENT_ORGS = 20;
/** runs whose fsyncs are counted, after the timed ones (the count is not part of their timing) */
const FSYNC_RUNS = 50;

function pct(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 100) / 100;
}

/**
 * The agent runtime's own cost per model step: sequential one-step runs (`message` with
 * `wait:true`, a local scripted model answering at once), each in a session of its own (created
 * before its timer starts), minus the same model call made directly with the very body the
 * service sent (its preamble, the agent's tool list, the message). What is left is HTTP in and
 * out, the durable job, the events and the waits: two commits (the message's, the run's start;
 * the step's, with its usage, Trace and events) and, since the first one is deferred (nobody is
 * answered before the run ends), one fsync of the log for both. `run_fsyncs` counts them: every
 * fsync and fdatasync of the service per run, over untimed runs after the timed ones (where
 * `perf` may trace). `run_service_cpu_ms` is the service's CPU per run (the model server runs
 * in this process, so none of the model's).
 *
 * `one_session_*`: the same runs all in one session, as a long conversation: each call also
 * carries every earlier turn (run n sends 2n - 1 messages), so the model's input, and what the
 * service serialises and sends, grow with the run count.
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
  const oneRun = async (sid: string, i: number): Promise<number> => {
    const t0 = performance.now();
    const r = await post(`/v1/agents/sessions/${sid}/message`, { content: `message ${i}`, wait: true, wait_timeout_s: 60 });
    if (r.run?.status !== 'completed') throw new Error(`run ${i} ended ${JSON.stringify(r.run ?? r)}`);
    return performance.now() - t0;
  };
  try {
    const agent = await post('/v1/agents', { name: 'bench', daily_credit_budget: 100_000 });
    // untimed runs; the last one's request is the body the service sends the model for a one-message session
    for (let i = 0; i < WARMUP_RUNS; i++) await oneRun((await post('/v1/agents/sessions', { agent_id: agent.id })).id as string, 0);
    const sent = JSON.stringify(llm.requests[llm.requests.length - 1].body);
    const direct: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const r = await fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer bench', 'content-type': 'application/json' }, body: sent });
      await r.text();
      direct.push(performance.now() - t0);
    }
    const sessions: string[] = [];
    for (let i = 0; i < RUNS; i++) sessions.push((await post('/v1/agents/sessions', { agent_id: agent.id })).id as string);
    const runs: number[] = [];
    // the service's CPU over the sequential runs: on a shared machine it moves far less with other work than the wall time
    const cpu0 = processCpuMs(server.child.pid);
    for (let i = 0; i < RUNS; i++) runs.push(await oneRun(sessions[i], i + 1));
    const cpu1 = processCpuMs(server.child.pid);
    const longRuns: number[] = [];
    // BENCH_AGENT_ONE_SESSION=0: not this phase (a CPU profile of the one-message runs alone)
    const oneSession = process.env.BENCH_AGENT_ONE_SESSION !== '0';
    const long = oneSession ? ((await post('/v1/agents/sessions', { agent_id: agent.id })).id as string) : '';
    const cpu2 = processCpuMs(server.child.pid);
    for (let i = 0; oneSession && i < RUNS; i++) longRuns.push(await oneRun(long, i + 1));
    const cpu3 = processCpuMs(server.child.pid);
    direct.sort((a, b) => a - b);
    runs.sort((a, b) => a - b);
    longRuns.sort((a, b) => a - b);
    // what the disk is asked per run: every fsync and fdatasync of the service (the log's, and any checkpoint's)
    const fsyncSessions: string[] = [];
    for (let i = 0; i < FSYNC_RUNS; i++) fsyncSessions.push((await post('/v1/agents/sessions', { agent_id: agent.id })).id as string);
    const syncs = await syncCalls(server.child.pid, async () => {
      for (let i = 0; i < FSYNC_RUNS; i++) await oneRun(fsyncSessions[i], i + 1);
    });
    const cpu = (a: number | null, b: number | null) => (a !== null && b !== null ? Math.round(((b - a) / RUNS) * 100) / 100 : null);
    const runCpu = cpu(cpu0, cpu1);
    const longCpu = cpu(cpu2, cpu3);
    return {
      ...(runCpu !== null ? { run_service_cpu_ms: runCpu } : {}),
      run_p50_ms: pct(runs, 50),
      run_p99_ms: pct(runs, 99),
      model_direct_p50_ms: pct(direct, 50),
      step_overhead_p50_ms: Math.round((pct(runs, 50) - pct(direct, 50)) * 100) / 100,
      ...(syncs !== null ? { run_fsyncs: Math.round((syncs / FSYNC_RUNS) * 100) / 100 } : {}),
      ...(oneSession && longCpu !== null ? { one_session_run_service_cpu_ms: longCpu } : {}),
      ...(oneSession ? { one_session_run_p50_ms: pct(longRuns, 50), one_session_run_p99_ms: pct(longRuns, 99) } : {}),
      // BENCH_AGENT_STEPS_ONLY=1: the sequential runs alone (a CPU profile of the step, nothing else in it)
      ...(process.env.BENCH_AGENT_STEPS_ONLY ? {} : await subscribers(server.url, headers, post, agent.id)),
      ...(process.env.BENCH_AGENT_STEPS_ONLY ? {} : await acrossOrganizations(server.url)),
    };
  } finally {
    await server.stop();
    await llm.close();
  }
}

type Post = (p: string, body: unknown) => Promise<Record<string, any>>;

/**
 * The fsync and fdatasync calls a process makes while `fn` runs, counted by `perf stat` on the
 * kernel's syscall tracepoints (nothing stops the process); null where perf is missing or may
 * not trace (perf_event_paranoid, containers).
 */
async function syncCalls(pid: number | undefined, fn: () => Promise<void>): Promise<number | null> {
  if (pid === undefined) return null;
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  perf.stderr.on('data', (d) => (err += String(d)));
  const exited = new Promise<number | null>((resolve) => {
    perf.once('error', () => resolve(null));
    perf.once('exit', (code) => resolve(code));
  });
  // perf attaches before it counts: a run made before then would go uncounted
  await new Promise((r) => setTimeout(r, 500));
  if (perf.exitCode !== null) {
    await exited;
    return null;
  }
  await fn();
  perf.kill('SIGINT');
  if ((await exited) === null && !err) return null;
  const counts = err.split('\n').map((l) => l.split(',')).filter((f) => /sys_enter_f(data)?sync/.test(f[2] ?? '')).map((f) => Number(f[0]));
  return counts.length === 2 && counts.every(Number.isFinite) ? counts[0] + counts[1] : null;
}

/**
 * 100 live subscribers: 10 sessions with 10 streams each (the per-session cap), one-step runs
 * sent to all sessions at once. Delivery of `message.user` is timed from the POST's answer (a
 * 202: the event is committed and durable before it) to its arrival on each stream, so the
 * figure is the stream's own latency, not the request's handling (an event that arrived before
 * its POST was answered counts 0). Every subscriber must receive every recorded event of every
 * run.
 */
async function subscribers(url: string, headers: Record<string, string>, post: Post, agentId: string): Promise<Record<string, number>> {
  const sessions = await Promise.all(Array.from({ length: STREAM_SESSIONS }, () => post('/v1/agents/sessions', { agent_id: agentId })));
  let missing = 0;
  const answered = new Map<string, number>();
  const arrivals: { key: string; at: number }[] = [];
  // run.completed seen per session, over its readers: the next round waits for all of them
  const completed = new Map<string, number>();
  const waiters = new Set<() => void>();
  const readers = await Promise.all(
    sessions.flatMap((s) =>
      Array.from({ length: STREAMS_PER_SESSION }, async () => {
        const sse = await openSse(`${url}/v1/agents/sessions/${s.id}/stream`, { authorization: headers.authorization });
        while ((await sse.nextEvent())?.event !== 'ready');
        return { sid: s.id as string, sse };
      }),
    ),
  );
  const reading = readers.map(async ({ sid, sse }) => {
    const seen: string[] = [];
    while (seen.filter((t) => t === 'run.completed').length < STREAM_MESSAGES) {
      const e = await sse.nextEvent();
      if (!e) break;
      if (!e.event || e.event === 'message.delta') continue;
      seen.push(e.event);
      if (e.event === 'message.user') arrivals.push({ key: `${sid}:${JSON.parse(e.data!).data.content}`, at: performance.now() });
      if (e.event === 'run.completed') {
        completed.set(sid, (completed.get(sid) ?? 0) + 1);
        for (const w of [...waiters]) w();
      }
    }
    const want = ['message.user', 'run.started', 'inference.completed', 'message.assistant', 'run.completed'];
    missing += STREAM_MESSAGES * want.length - seen.filter((t) => want.includes(t)).length;
    sse.close();
  });
  const roundDone = (sid: string, round: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if ((completed.get(sid) ?? 0) < STREAMS_PER_SESSION * (round + 1)) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  for (let i = 0; i < STREAM_MESSAGES; i++)
    await Promise.all(
      sessions.map(async (s) => {
        await post(`/v1/agents/sessions/${s.id}/message`, { content: `m${i}` });
        answered.set(`${s.id}:m${i}`, performance.now());
        await roundDone(s.id, i);
      }),
    );
  await Promise.all(reading);
  const delivery = arrivals.map((a) => Math.max(0, a.at - answered.get(a.key)!)).sort((a, b) => a - b);
  return { sse_subscribers: readers.length, sse_delivery_p50_ms: pct(delivery, 50), sse_delivery_p99_ms: pct(delivery, 99), sse_events_missing: missing };
}

/** 20 organizations (each on Pro, its own agent) each sending one message at the same moment. */
async function acrossOrganizations(url: string): Promise<Record<string, number>> {
  const call = async (p: string, body: unknown, token: string) => {
    const r = await fetch(url + p, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await r.json()) as Record<string, any>;
    if (r.status >= 300) throw new Error(`${p}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const orgs = [];
  for (let i = 0; i < CONCURRENT_ORGS; i++) {
    const r = await fetch(url + '/v1/auth/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `agents-${i}-${process.pid}@example.com`, password: 'bench password 123' }) });
    const s = (await r.json()) as { access_token: string };
    await call('/v1/billing/subscribe', { plan: 'pro' }, s.access_token);
    const agent = await call('/v1/agents', { name: `bench ${i}` }, s.access_token);
    const session = await call('/v1/agents/sessions', { agent_id: agent.id }, s.access_token);
    orgs.push({ token: s.access_token, sid: session.id as string });
  }
  const each: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    orgs.map(async (o) => {
      const t = performance.now();
      const r = await call(`/v1/agents/sessions/${o.sid}/message`, { content: 'go', wait: true, wait_timeout_s: 60 }, o.token);
      if (r.run?.status !== 'completed') throw new Error(`a run ended ${JSON.stringify(r.run ?? r)}`);
      each.push(performance.now() - t);
    }),
  );
  const wall = performance.now() - t0;
  each.sort((a, b) => a - b);
  return { concurrent_orgs: CONCURRENT_ORGS, concurrent_runs_wall_ms: Math.round(wall), concurrent_run_p50_ms: pct(each, 50), concurrent_run_p99_ms: pct(each, 99) };
}
