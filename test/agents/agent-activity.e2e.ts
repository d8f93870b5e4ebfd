import WebSocket from 'ws';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { ManualTimers } from '@strata/live';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** The activity feed (REFERENCE §16.12) over REST and its WebSocket, through real HTTP and a real ws client. */


interface Socket {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
  /** the first message (from `from` on) that matches */
  next(match: (m: any) => boolean, from?: number): Promise<any>;
  send(m: unknown): void;
}

function openSocket(url: string, token?: string): Promise<Socket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/agents/activity/ws', token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const messages: any[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  const s: Socket = {
    ws,
    messages,
    closed,
    next: (match, from = 0) => eventually(() => messages.slice(from).find(match), { what: 'a socket message' }),
    send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(s));
    ws.once('error', reject);
  });
}

describe('agent activity feed', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  const timers = new ManualTimers((s) => clock.advance(s));
  const sockets: Socket[] = [];
  const open = async (token?: string) => {
    const s = await openSocket(t.url, token);
    sockets.push(s);
    return s;
  };

  /** a Pro organization: its owner's access token (40 s in this file) and an API key */
  async function proOrg(): Promise<{ owner: Api; key: string; token: string; a: Api }> {
    const s = await signUp(t.url);
    const owner = api(t.url, s.access_token);
    expect((await owner.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const key = (await createApiKey(t.url, s.access_token)).key;
    return { owner, key, token: s.access_token, a: api(t.url, key) };
  }

  async function runToEnd(a: Api, agentId: string, text: string) {
    llm.enqueue({ type: 'text', text });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agentId, message: 'Go' })).body;
    await eventually(async () => (await a.get(`/v1/agents/sessions/${created.id}`)).body.last_run?.status === 'completed', { what: 'the run completes' });
    return created;
  }

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({
      clock,
      liveTimers: timers,
      accessTokenTtl: 40,
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' },
    });
  });
  afterAll(async () => {
    for (const s of sockets) s.ws.terminate();
    await t.close();
    await llm.close();
  });

  it('lists what the agents did, newest first, with filters; a bound key sees its own agent only', async () => {
    const { a, token } = await proOrg();
    const one = (await a.post('/v1/agents', { name: 'One' })).body;
    const two = (await a.post('/v1/agents', { name: 'Two' })).body;
    expect((await a.patch(`/v1/agents/${one.id}`, { description: 'first' })).status).toBe(200);
    const session = await runToEnd(a, one.id, 'Done.');

    const all = (await a.get('/v1/agents/activity')).body;
    expect(all.items.map((i: { type: string }) => i.type)).toEqual(['run.completed', 'run.started', 'session.created', 'agent.updated', 'agent.created', 'agent.created']);
    expect(all.items.map((i: { seq: number }) => i.seq)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(all.items[0]).toMatchObject({
      type: 'run.completed', agent_id: one.id, agent_name: 'One', session_id: session.id, run_id: session.run_id, schedule_id: null, approval_id: null, connection_id: null,
      summary: expect.any(String), data: { stop_reason: 'end_turn', steps: 1 }, created_at: '2030-01-01T12:00:00.000Z',
    });
    expect(all.items[5]).toMatchObject({ type: 'agent.created', agent_id: one.id, agent_name: 'One' });

    const types = (q: string) => a.get(`/v1/agents/activity${q}`).then((r) => r.body.items.map((i: { type: string; seq: number }) => `${i.seq} ${i.type}`));
    expect(await types(`?agent_id=${two.id}`)).toEqual(['2 agent.created']);
    expect(await types('?types=agent.created,run.started')).toEqual(['5 run.started', '2 agent.created', '1 agent.created']);
    expect(await types('?after=4')).toEqual(['6 run.completed', '5 run.started']);
    expect(await types('?limit=2&offset=1')).toEqual(['5 run.started', '4 session.created']);
    expect((await a.get('/v1/agents/activity?limit=2')).body.has_more).toBe(true);
    expect(await types('?since=2030-01-01T12:00:01Z')).toEqual([]);
    expect((await a.get('/v1/agents/activity?types=run.exploded')).body).toMatchObject({ code: 'invalid_field', field: 'types' });
    expect((await a.get('/v1/agents/activity?since=yesterday')).body).toMatchObject({ code: 'invalid_field', field: 'since' });

    // a key bound to agent Two reads Two's items only, whatever it asks for
    const boundKey = (await createApiKey(t.url, token, { agent_id: two.id })).key;
    const b = api(t.url, boundKey);
    expect((await b.get('/v1/agents/activity')).body.items.map((i: { type: string }) => i.type)).toEqual(['agent.created']);
    expect((await b.get(`/v1/agents/activity?agent_id=${one.id}`)).body.items).toEqual([]);

    // another organization sees none of it
    const other = await proOrg();
    expect((await other.a.get('/v1/agents/activity')).body.items).toEqual([]);
  });

  it('WebSocket: Bearer on the upgrade, ready, then each new item as the feed numbered it; subscribe filters and replays', async () => {
    const { a, key } = await proOrg();
    const agent = (await a.post('/v1/agents', { name: 'Live' })).body;
    const s = await open(key);
    const ready = await s.next((m) => m.type === 'ready');
    expect(ready).toEqual({ type: 'ready', org_id: agent.org_id, last_seq: 1, heartbeat_s: 25 });
    const other = await proOrg();
    await other.a.post('/v1/agents', { name: 'Elsewhere' });
    await runToEnd(a, agent.id, 'Live answer.');
    const run = await s.next((m) => m.type === 'activity' && m.item.type === 'run.completed');
    expect(run.item).toMatchObject({ seq: 4, agent_id: agent.id, agent_name: 'Live' });
    expect(s.messages.filter((m) => m.type === 'activity').map((m) => `${m.item.seq} ${m.item.type}`)).toEqual(['2 session.created', '3 run.started', '4 run.completed']);
    const listed = (await a.get('/v1/agents/activity?limit=1')).body.items[0];
    expect(run.item).toEqual(listed);

    // ping → pong
    s.send({ type: 'ping' });
    await s.next((m) => m.type === 'pong');

    // subscribe replaces the filter and replays what came after after_seq
    const mark = s.messages.length;
    s.send({ type: 'subscribe', types: ['run.started', 'agent.created'], after_seq: 0 });
    await s.next((m) => m.type === 'activity' && m.item.type === 'run.started', mark);
    expect(s.messages.slice(mark).map((m) => `${m.item.seq} ${m.item.type}`)).toEqual(['1 agent.created', '3 run.started']);
    await a.patch(`/v1/agents/${agent.id}`, { description: 'not sent: filtered out' });
    await runToEnd(a, agent.id, 'Again.');
    await s.next((m) => m.type === 'activity' && m.item.seq === 7, mark);
    expect(s.messages.slice(mark).map((m) => `${m.item.seq} ${m.item.type}`)).toEqual(['1 agent.created', '3 run.started', '7 run.started']);

    // heartbeats every 25 s
    timers.advance(25_000);
    const beat = await s.next((m) => m.type === 'heartbeat');
    expect(beat.at).toBe(new Date(clock.now() * 1000).toISOString());
  });

  it('authenticates by a first auth message within 10 s, and sends nothing before; closes 4408 without one', async () => {
    const { key } = await proOrg();
    const s = await open();
    const late = await open();
    s.send({ type: 'auth', token: key });
    await s.next((m) => m.type === 'ready');
    expect(late.messages).toEqual([]);
    timers.advance(10_000);
    expect(await late.closed).toMatchObject({ code: 4408 });
    expect(late.messages).toEqual([]);
  });

  it('close codes: 4401 bad credential, 4403 plan, 4400 malformed, 4429 beyond 10 sockets, token_expired then 4401', async () => {
    expect((await (await open('strata_not_a_key')).closed).code).toBe(4401);
    const bad = await open();
    bad.send({ type: 'auth', token: 'nope' });
    expect((await bad.closed).code).toBe(4401);

    const free = await signUp(t.url);
    const freeKey = (await createApiKey(t.url, free.access_token)).key;
    expect((await (await open(freeKey)).closed)).toMatchObject({ code: 4403, reason: 'plan_required' });

    const { key, token } = await proOrg();
    const m = await open(key);
    await m.next((x) => x.type === 'ready');
    m.send('not json');
    expect((await m.closed).code).toBe(4400);
    const u = await open(key);
    await u.next((x) => x.type === 'ready');
    u.send({ type: 'subscribe', types: ['run.exploded'] });
    expect((await u.closed).code).toBe(4400);

    const many: Socket[] = [];
    for (let i = 0; i < 10; i++) many.push(await open(key));
    for (const s of many) await s.next((x) => x.type === 'ready');
    expect((await (await open(key)).closed).code).toBe(4429);
    for (const s of many) s.ws.close();

    // an access token that expires while the socket is open: an error frame, then 4401
    const j = await open(token);
    await j.next((x) => x.type === 'ready');
    timers.advance(25_000);
    await j.next((x) => x.type === 'heartbeat');
    timers.advance(25_000);
    expect(await j.next((x) => x.type === 'error')).toMatchObject({ code: 'token_expired' });
    expect((await j.closed).code).toBe(4401);
  });

  it('a key bound to an agent gets only that agent’s items', async () => {
    const s = await signUp(t.url);
    const owner = api(t.url, s.access_token);
    expect((await owner.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const a = api(t.url, (await createApiKey(t.url, s.access_token)).key);
    const mine = (await a.post('/v1/agents', { name: 'Mine' })).body;
    const theirs = (await a.post('/v1/agents', { name: 'Theirs' })).body;
    const bound = (await createApiKey(t.url, s.access_token, { agent_id: mine.id })).key;
    const sock = await open(bound);
    await sock.next((x) => x.type === 'ready');
    await a.patch(`/v1/agents/${theirs.id}`, { description: 'not for the bound key' });
    await a.patch(`/v1/agents/${mine.id}`, { description: 'for the bound key' });
    await sock.next((x) => x.type === 'activity');
    await runToEnd(a, theirs.id, 'Theirs.');
    await a.patch(`/v1/agents/${mine.id}`, { description: 'last' });
    await eventually(() => sock.messages.filter((x) => x.type === 'activity').length >= 2, { what: 'two items' });
    expect(sock.messages.filter((x) => x.type === 'activity').map((x) => `${x.item.agent_id === mine.id} ${x.item.type}`)).toEqual(['true agent.updated', 'true agent.updated']);
    // subscribing to the other agent gives nothing
    sock.send({ type: 'subscribe', agent_ids: [theirs.id], after_seq: 0 });
    sock.send({ type: 'ping' });
    await sock.next((x) => x.type === 'pong');
    expect(sock.messages.filter((x) => x.type === 'activity')).toHaveLength(2);
  });

  it('items older than 90 days are not listed', async () => {
    const { a } = await proOrg();
    await a.post('/v1/agents', { name: 'Old' });
    expect((await a.get('/v1/agents/activity')).body.items).toHaveLength(1);
    clock.advance(91 * 86400);
    expect((await a.get('/v1/agents/activity')).body.items).toEqual([]);
  });

  it('closes open sockets with 1001 on shutdown', async () => {
    const { key } = await proOrg();
    const s = await open(key);
    await s.next((x) => x.type === 'ready');
    await t.close();
    expect((await s.closed).code).toBe(1001);
  });
});
