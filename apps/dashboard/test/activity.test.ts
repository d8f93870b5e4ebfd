import { afterEach, describe, expect, it, vi } from 'vitest';
import { activity } from '../src/areas/activity';
import { alerts, ctxFor, FakeApi, fill, labelled, leave, page, render, text } from './support/fake-api';

/** The browser's WebSocket as the page uses it: what it sent, and the server's side to play. */
class FakeSocket {
  static all: FakeSocket[] = [];
  readonly sent: Record<string, unknown>[] = [];
  private readonly listeners = new Map<string, ((e: unknown) => void)[]>();
  closed: number | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  addEventListener(type: string, fn: (e: unknown) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000) {
    this.closed = code;
  }
  emit(type: string, e: unknown = {}) {
    for (const fn of this.listeners.get(type) ?? []) fn(e);
  }
  message(m: unknown) {
    this.emit('message', { data: JSON.stringify(m) });
  }
}

const item = (seq: number, type = 'run.completed', summary = `run ${seq} completed`) => ({
  seq, type, agent_id: 'ag1', agent_name: 'Scout', session_id: 'se1', run_id: `r${seq}`, schedule_id: null, approval_id: null, connection_id: null, summary, data: {}, created_at: '2030-01-15T12:00:00Z',
});

function service() {
  const api = new FakeApi();
  api.on('get', '/v1/agents/activity', page([item(2), item(1)]));
  api.on('get', '/v1/agents', page([{ id: 'ag1', name: 'Scout' }]));
  return api;
}

describe('the activity feed', () => {
  afterEach(() => {
    FakeSocket.all = [];
    document.body.replaceChildren();
  });

  it('shows the latest items, authenticates the socket with the access token, replays from the last seq and adds live items once', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const main = await render(activity, ctxFor(service(), 'viewer'), {}, 'agent_id=ag1');
    expect([...main.querySelectorAll('li.activity')].map((l) => l.getAttribute('data-seq'))).toEqual(['2', '1']);
    await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    const ws = FakeSocket.all[0];
    expect(ws.url).toBe('ws://127.0.0.1:8080/v1/agents/activity/ws');
    ws.emit('open');
    expect(ws.sent).toEqual([{ type: 'auth', token: 'access-token' }]);
    ws.message({ type: 'ready', org_id: 'org-1', last_seq: 3, heartbeat_s: 25 });
    expect(ws.sent[1]).toEqual({ type: 'subscribe', after_seq: 2, agent_ids: ['ag1'] });
    await vi.waitFor(() => expect(text(main.querySelector('#activity-state'))).toBe('live'));
    ws.message({ type: 'activity', item: item(3, 'approval.requested', 'Scout asks to call forecast') });
    ws.message({ type: 'activity', item: item(2) });
    ws.message({ type: 'heartbeat', at: '2030-01-15T12:00:25Z' });
    await vi.waitFor(() => expect([...main.querySelectorAll('li.activity')].map((l) => l.getAttribute('data-seq'))).toEqual(['3', '2', '1']));
    expect(text(main.querySelector('li[data-seq="3"]'))).toContain('Scout asks to call forecast');
  });

  it('refreshes an expired token and opens a new socket; a refusal of the role shows its reason', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const api = service();
    api.session.refresh.mockImplementation(async () => {
      api.session.access = 'fresh-token';
      return true;
    });
    const main = await render(activity, ctxFor(api, 'member'));
    await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    const first = FakeSocket.all[0];
    first.emit('open');
    first.message({ type: 'error', code: 'token_expired', error: 'token expired' });
    first.emit('close', { code: 4401, reason: 'token expired' });
    await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(2));
    const second = FakeSocket.all[1];
    second.emit('open');
    expect(second.sent[0]).toEqual({ type: 'auth', token: 'fresh-token' });
    second.emit('close', { code: 4403, reason: 'Managed agents need the Pro plan.' });
    await vi.waitFor(() => expect(alerts(main)).toEqual(['Managed agents need the Pro plan.']));
    expect(text(main.querySelector('#activity-state'))).toBe('closed');
  });

  it('filters by kind through the address, and closes the socket when the person leaves', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const ctx = ctxFor(service(), 'owner');
    const main = await render(activity, ctx);
    fill(labelled(main, 'Kind'), 'run.failed');
    expect(ctx.navigate).toHaveBeenCalledWith('/app/agents/activity?type=run.failed');
    await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    expect(FakeSocket.all[0].closed).toBe(null);
    leave();
    expect(FakeSocket.all[0].closed).toBe(1000);
  });
});
