import WebSocket from 'ws';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { RunDeadlines } from '../../apps/api/src/agents/runtime/run-deadlines';
import { RunControl } from '../../apps/api/src/agents/runtime/run-control';
import { openSse } from '@strata/live/testing/sse-client';
import { Api, api, signUpWithKey } from '../support/http';
import { EmbeddedServers } from './support/embedded-servers';
import { eventually as waitFor } from '@strata/domain/testing/eventually';
import { Replica, Worker, ModelReplicaPair, startModelReplicaPair } from './support/servers-mode-app';

/**
 * Managed agents' schedules and live streams in servers mode: two API replicas on one log, each
 * with its own mirror of the agents read model. A schedule made on one replica fires from
 * either replica's scheduler once; the activity feed and its WebSocket, and a session's event
 * stream, on one replica carry what the other wrote, numbered as the list numbers it.
 */

/** waits for background work of the replicas (returns the first truthy value) */
const eventually = <T>(check: () => T | Promise<T>, what: string) => waitFor(check, { what, timeoutMs: 10_000, everyMs: 20 });

interface Socket {
  messages: any[];
  next(match: (m: any) => boolean, from?: number): Promise<any>;
  send(m: unknown): void;
  close(): void;
}

function openSocket(url: string, key: string): Promise<Socket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/agents/activity/ws', { headers: { authorization: `Bearer ${key}` } });
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  const s: Socket = {
    messages,
    next: (match, from = 0) => eventually(() => messages.slice(from).find(match), 'a socket message'),
    send: (m) => ws.send(JSON.stringify(m)),
    close: () => ws.terminate(),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(s));
    ws.once('error', reject);
  });
}

describe('servers mode: agent schedules, the activity feed and live streams across replicas', () => {
  let servers: EmbeddedServers;
  let llm: ScriptedOpenAIChatServer;
  let a: Replica;
  let b: Replica;
  let worker: Worker;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  let pair: ModelReplicaPair;
  beforeAll(async () => {
    // the tests move the clock by hours: the worker's lease must outlast that
    pair = await startModelReplicaPair({ clock, leaseTtlMs: 30 * 24 * 3600_000 });
    ({ servers, llm, a, b, worker } = pair);
  });
  afterAll(async () => pair?.close());
  afterEach(() => expect(worker.problems).toEqual([]));

  /** a Pro organization, called with an API key on each replica (the clock moves past access tokens) */
  async function proOrg(): Promise<{ ka: Api; kb: Api; key: string }> {
    const s = await signUpWithKey(a.url);
    expect((await api(a.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    await eventually(async () => (await api(b.url, s.key).get('/v1/agents')).status === 200, 'agents usable on B');
    return { ka: api(a.url, s.key), kb: api(b.url, s.key), key: s.key };
  }

  it('a schedule made on A fires once though both replicas tick; the run, the feed and the socket on A show what B fired', async () => {
    const { ka, kb, key } = await proOrg();
    const agent = (await ka.post('/v1/agents', { name: 'Watcher', template_type: 'monitor' })).body;
    const created = await ka.post('/v1/agents/schedules', { agent_id: agent.id, name: 'Hourly', cron: '0 * * * *', timezone: 'Europe/Paris', message_template: 'Check {{time}}' });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await eventually(async () => (await kb.get('/v1/agents/schedules')).body.items?.length === 1, 'schedule on B');

    const sock = await openSocket(a.url, key);
    const ready = await sock.next((m) => m.type === 'ready');
    expect(ready).toMatchObject({ org_id: agent.org_id, last_seq: 1 }); // agent.created (a schedule's creation makes no item)

    llm.enqueue({ type: 'text', text: 'All quiet.' });
    clock.set(at('2030-01-01T13:00:05Z'));
    const fromB = await b.app.get(Scheduler).tick();
    const fromA = await a.app.get(Scheduler).tick();
    // the slot fired from one scheduler (B's, unless A's own polling took it first), never twice
    expect([...fromB, ...fromA].filter((r) => r.schedule_id === id).length).toBeLessThanOrEqual(1);
    const fired = await eventually(async () => {
      const s = (await ka.get('/v1/agents/schedules')).body.items[0];
      return s?.fire_count === 1 ? s : null;
    }, 'the firing recorded on A');
    expect(fired).toMatchObject({ last_outcome: 'started', next_run_at: '2030-01-01T14:00:00.000Z' });
    const sid = fired.last_session_id;
    await eventually(async () => (await ka.get(`/v1/agents/sessions/${sid}`)).body.last_run?.status === 'completed', 'the scheduled run completed');
    expect((await ka.get(`/v1/agents/sessions/${sid}`)).body).toMatchObject({ source: 'schedule', schedule_id: id, title: 'Hourly · 2030-01-01 14:00' });

    // the socket on A sent each item as the feed numbered it, whichever replica wrote it
    await sock.next((m) => m.type === 'activity' && m.item.type === 'run.completed');
    const sent = sock.messages.filter((m) => m.type === 'activity').map((m) => `${m.item.seq} ${m.item.type}`);
    expect(sent).toEqual(['2 session.created', '3 schedule.fired', '4 run.started', '5 run.completed']);
    for (const k of [ka, kb]) {
      await eventually(async () => (await k.get('/v1/agents/activity')).body.items?.length === 5, 'the feed');
      const listed = (await k.get('/v1/agents/activity')).body.items.map((i: { seq: number; type: string }) => `${i.seq} ${i.type}`);
      expect(listed.slice(0, 4).reverse()).toEqual(sent);
    }

    // a later slot while the agent is paused (paused on B): skipped, and the socket on A says so
    expect((await kb.patch(`/v1/agents/${agent.id}`, { paused: true })).status).toBe(200);
    await eventually(async () => (await ka.get(`/v1/agents/${agent.id}`)).body.paused === true, 'paused on A');
    const mark = sock.messages.length;
    clock.set(at('2030-01-01T14:00:05Z'));
    await a.app.get(Scheduler).tick();
    await b.app.get(Scheduler).tick();
    const skipped = await sock.next((m) => m.type === 'activity' && m.item.type === 'schedule.skipped', mark);
    expect(skipped.item).toMatchObject({ schedule_id: id, data: { outcome: 'skipped_paused' } });

    // a subscribe on A replays what came before, from the same numbering
    const replayMark = sock.messages.length;
    sock.send({ type: 'subscribe', types: ['schedule.fired', 'schedule.skipped'], after_seq: 0 });
    await eventually(() => sock.messages.slice(replayMark).filter((m) => m.type === 'activity').length >= 2, 'the replay');
    expect(sock.messages.slice(replayMark).filter((m) => m.type === 'activity').map((m) => `${m.item.seq} ${m.item.type}`)).toEqual(['3 schedule.fired', `${skipped.item.seq} schedule.skipped`]);
    sock.close();
  });

  /**
   * Both replicas sweep on their own mirrors; the plan change needs no clock jump (a jump past
   * the job lease would let the other replica claim the run's job as well, which is another
   * matter). The timeout and the question expiry append the same way (AgentsStore.expectedRevision).
   */
  it('a downgrade sweeping on both replicas cancels each run once, running or waiting on a person, and stops the model request where it runs', async () => {
    const s = await signUpWithKey(a.url);
    const owner = api(a.url, s.access_token);
    expect((await owner.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const [ka, kb] = [api(a.url, s.key), api(b.url, s.key)];
    await eventually(async () => (await kb.get('/v1/agents')).status === 200, 'agents usable on B');
    const agent = (await ka.post('/v1/agents', { name: 'Busy', template_type: 'monitor' })).body;
    const typesOf = async (sid: string) => (await ka.get(`/v1/agents/sessions/${sid}/events?limit=1000`)).body.items.map((e: { type: string }) => e.type);

    llm.enqueue({ type: 'hang' });
    const one = (await ka.post('/v1/agents/sessions', { agent_id: agent.id, message: 'long job' })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Sure?' } }] });
    const two = (await ka.post('/v1/agents/sessions', { agent_id: agent.id, message: 'ask me' })).body;
    for (const k of [ka, kb]) {
      await eventually(async () => (await k.get(`/v1/agents/sessions/${one.id}`)).body.current_run?.status === 'running', 'the first running');
      await eventually(async () => (await k.get(`/v1/agents/sessions/${two.id}`)).body.current_run?.status === 'requires_action', 'the second asking');
    }
    expect((await owner.post('/v1/billing/subscribe', { plan: 'free' })).status).toBe(200);
    await eventually(async () => (await kb.get('/v1/agents')).status === 403, 'the downgrade on B');
    await Promise.all([a.app.get(RunDeadlines).sweep(), b.app.get(RunDeadlines).sweep()]);
    await Promise.all([a.app.get(RunDeadlines).sweep(), b.app.get(RunDeadlines).sweep()]);
    // the hanging model request was aborted where the run ran
    await eventually(() => !a.app.get(RunControl).isRunning(one.run_id) && !b.app.get(RunControl).isRunning(one.run_id), 'the run stopped');

    expect((await owner.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    await eventually(async () => (await ka.get(`/v1/agents/sessions/${one.id}`)).status === 200, 'back on Pro');
    expect(await typesOf(one.id)).toEqual(['session.created', 'message.user', 'run.started', 'run.cancelled']);
    expect(await typesOf(two.id)).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'input.requested', 'run.cancelled']);
  });

  it('two replicas creating agents of the same name at once: one 201, one 409 duplicate; a rename races the same way', async () => {
    const { ka, kb } = await proOrg();
    for (const [x, y] of [['Twin', 'twin '], ['Pair', 'PAIR']]) {
      const both = await Promise.all([ka.post('/v1/agents', { name: x }), kb.post('/v1/agents', { name: y })]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(both.find((r) => r.status === 409)!.body).toMatchObject({ code: 'duplicate' });
    }
    const one = (await ka.post('/v1/agents', { name: 'One' })).body;
    const two = (await ka.post('/v1/agents', { name: 'Two' })).body;
    await eventually(async () => (await kb.get(`/v1/agents/${two.id}`)).status === 200, 'the agents on B');
    const renamed = await Promise.all([ka.patch(`/v1/agents/${one.id}`, { name: 'Same' }), kb.patch(`/v1/agents/${two.id}`, { name: 'same' })]);
    expect(renamed.map((r) => r.status).sort()).toEqual([200, 409]);
    const names = (await ka.get('/v1/agents')).body.items.map((x: { name: string }) => x.name.toLowerCase());
    expect(names.filter((n: string) => n === 'same')).toHaveLength(1);
  });

  it('an interrupt served by the other replica aborts the model request in flight on the replica running the run', async () => {
    const { ka, kb } = await proOrg();
    const agent = (await ka.post('/v1/agents', { name: 'Slow' })).body;
    llm.enqueue({ type: 'hang' });
    const before = llm.requests.length;
    const created = (await ka.post('/v1/agents/sessions', { agent_id: agent.id, message: 'take your time' })).body;
    await eventually(() => llm.requests.length === before + 1, 'the model called');
    const [runner, other] = await eventually(() => {
      const onA = a.app.get(RunControl).isRunning(created.run_id);
      const onB = b.app.get(RunControl).isRunning(created.run_id);
      return onA ? [a, kb] : onB ? [b, ka] : null;
    }, 'the replica running the run');
    await eventually(async () => (await other.get(`/v1/agents/sessions/${created.id}`)).body.current_run?.status === 'running', 'the run running on the other');
    const stop = await other.post(`/v1/agents/sessions/${created.id}/interrupt`, {});
    expect(stop.body).toMatchObject({ interrupted: true, run_id: created.run_id });
    // the hanging request never answers: only the abort ends the job on the running replica
    await eventually(() => !(runner as Replica).app.get(RunControl).isRunning(created.run_id), 'the run stopped where it ran');
    llm.enqueue({ type: 'text', text: 'Back.' });
    const next = await ka.post(`/v1/agents/sessions/${created.id}/message`, { content: 'again', wait: true });
    expect(next.body).toMatchObject({ run: { status: 'completed' }, output: 'Back.' });
  });

  it("the model's streamed text (message.delta) reaches the session's streams on both replicas, whichever runs the run", async () => {
    const { ka, key } = await proOrg();
    const agent = (await ka.post('/v1/agents', { name: 'Talker' })).body;
    const sid = (await ka.post('/v1/agents/sessions', { agent_id: agent.id })).body.id;
    const auth = { authorization: `Bearer ${key}` };
    await eventually(async () => (await api(b.url, key).get(`/v1/agents/sessions/${sid}`)).status === 200, 'session on B');
    const streams = [await openSse(`${a.url}/v1/agents/sessions/${sid}/stream`, auth), await openSse(`${b.url}/v1/agents/sessions/${sid}/stream`, auth)];
    for (const st of streams) expect((await st.nextEvent())?.retry).toBe(3000);
    for (const st of streams) expect((await st.nextEvent())?.event).toBe('ready');

    const text = 'Streamed across the replicas, word by word.';
    llm.enqueue({ type: 'text', text });
    const sent = await ka.post(`/v1/agents/sessions/${sid}/message`, { content: 'talk' });
    for (const st of streams) {
      const deltas: { message_id: string; delta: string }[] = [];
      let answer: any = null;
      while (!answer) {
        const e = await st.nextEvent();
        if (e?.event === 'message.delta') deltas.push(JSON.parse(e.data!).data);
        if (e?.event === 'message.assistant') answer = JSON.parse(e.data!).data;
      }
      expect(deltas.map((d) => d.delta).join('')).toBe(text);
      expect(new Set(deltas.map((d) => d.message_id))).toEqual(new Set([answer.message_id]));
      st.close();
    }
    // one run on one replica: one of the two streams got the text through the relay
    expect(sent.status).toBe(202);
  });

  it("a session's event stream on B carries the events of a run A queued, numbered as listed; Last-Event-ID resumes there", async () => {
    const { ka, kb, key } = await proOrg();
    const agent = (await ka.post('/v1/agents', { name: 'Streamer' })).body;
    const sid = (await ka.post('/v1/agents/sessions', { agent_id: agent.id })).body.id;
    await eventually(async () => (await kb.get(`/v1/agents/sessions/${sid}`)).status === 200, 'session on B');
    const auth = { authorization: `Bearer ${key}` };
    const live = await openSse(`${b.url}/v1/agents/sessions/${sid}/stream`, auth);
    expect((await live.nextEvent())?.retry).toBe(3000);
    expect(JSON.parse((await live.nextEvent())!.data!)).toEqual({ session_id: sid, status: 'idle', last_seq: 1 });

    llm.enqueue({ type: 'text', text: 'answered' });
    await ka.post(`/v1/agents/sessions/${sid}/message`, { content: 'go' });
    const got: string[] = [];
    while (got.length < 5) {
      const e = await live.nextEvent();
      // deltas (relayed, no id) are left out here; ids are those of the recorded events
      if (e?.event && e.event !== 'message.delta') got.push(`${e.id} ${e.event}`);
    }
    expect(got).toEqual(['2 message.user', '3 run.started', '4 inference.completed', '5 message.assistant', '6 run.completed']);
    live.close();

    const again = await openSse(`${b.url}/v1/agents/sessions/${sid}/stream`, { ...auth, 'last-event-id': '4' });
    await again.nextEvent();
    expect((await again.nextEvent())?.event).toBe('ready');
    const replayed = [await again.nextEvent(), await again.nextEvent()];
    expect(replayed.map((e) => `${e?.id} ${e?.event}`)).toEqual(['5 message.assistant', '6 run.completed']);
    // archived on A: the stream on B ends after session.archived
    expect((await ka.post(`/v1/agents/sessions/${sid}/archive`, {})).status).toBe(200);
    expect((await again.rest()).filter((x) => x.event).map((x) => x.event)).toEqual(['session.archived']);
  });
});
