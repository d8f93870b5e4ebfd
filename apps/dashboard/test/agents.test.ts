import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentPage, agents, sessionPage } from '../src/areas/agents';
import { alerts, button, buttons, ctxFor, FakeApi, fill, labelled, leave, page, refusal, render, text } from './support/fake-api';

const agent = (over: Record<string, unknown> = {}) => ({
  id: 'ag1', name: 'Scout', description: null, template_type: 'researcher', model: 'scripted', status: 'active', tools: ['strata_retrieve'],
  budget: { daily_credit_budget: 200, used_today: 3, remaining_today: 197, resets_at: '2030-01-16T00:00:00Z' }, usage: { runs: 1, credits: 3 },
  active_sessions: 1, last_run_at: null, created_at: '2030-01-15T00:00:00Z', ...over,
});
const session = (over: Record<string, unknown> = {}) => ({
  id: 'se1', agent_id: 'ag1', title: 'First contact', status: 'idle', source: 'api', current_run: null, last_run: null, queued_messages: 0, message_count: 2,
  last_seq: 3, usage: { credits: 3 }, created_at: '2030-01-15T00:00:00Z', last_activity_at: null, ...over,
});
const envelope = (seq: number, type: string, data: Record<string, unknown>) => JSON.stringify({ seq, session_id: 'se1', run_id: 'r1', type, created_at: '2030-01-15T00:00:00Z', data });

describe('managed agents', () => {
  afterEach(() => document.body.replaceChildren());

  it('lists agents, and an owner creates one from a template', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/agents', page([agent()]));
    api.on('get', '/v1/agents/templates', [{ template_type: 'custom', name: 'Custom', description: 'yours' }, { template_type: 'monitor', name: 'Monitor', description: 'watches' }]);
    api.on('post', '/v1/agents', agent({ id: 'ag2', name: 'Watcher' }));
    const ctx = ctxFor(api, 'owner');
    const main = await render(agents, ctx);
    expect(text(main.querySelector('table'))).toContain('3 of 200');
    fill(labelled(main, 'Name'), 'Watcher');
    fill(labelled(main, 'Template'), 'monitor');
    button(main, 'Create agent').click();
    await vi.waitFor(() => expect(ctx.navigate).toHaveBeenCalledWith('/app/agents/ag2'));
    expect(api.to('post', '/v1/agents')[0].body).toEqual({ name: 'Watcher', template_type: 'monitor' });
  });

  it('gives a viewer the agent without the form to start a session', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/agents/{id}', agent());
    api.on('get', '/v1/agents/sessions', page([session()]));
    const main = await render(agentPage, ctxFor(api, 'viewer'), { id: 'ag1' });
    expect(text(main.querySelector('table'))).toContain('First contact');
    expect(buttons(main, 'Start session')).toEqual([]);
  });

  it('follows a session’s stream from the last event, shows each event once, and shows a refused message’s reason', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/agents/sessions/{sid}', session());
    api.on('get', '/v1/agents/{id}', agent());
    api.on('post', '/v1/agents/sessions/{sid}/message', refusal(409, 'agent_paused', 'agent Scout is paused'));
    const asked: { url: string; auth: string | undefined }[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      asked.push({ url, auth: (init.headers as Record<string, string>).authorization });
      return new Response([
        'retry: 3000', '', 'event: ready', 'data: {"session_id":"se1","status":"idle","last_seq":3}', '',
        'id: 1', 'event: message.user', `data: ${envelope(1, 'message.user', { content: 'Say hello' })}`, '',
        'event: message.delta', 'data: {"data":{"delta":"Hel"}}', '',
        'id: 2', 'event: message.assistant', `data: ${envelope(2, 'message.assistant', { content: 'Hello.' })}`, '',
        'id: 2', 'event: message.assistant', `data: ${envelope(2, 'message.assistant', { content: 'Hello.' })}`, '', '',
      ].join('\n'), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
    const main = await render(sessionPage, ctxFor(api, 'member'), { sid: 'se1' });
    await vi.waitFor(() => expect([...main.querySelectorAll('li.event')].map((e) => e.getAttribute('data-seq'))).toEqual(['1', '2']));
    expect(asked[0]).toEqual({ url: '/v1/agents/sessions/se1/stream?after=0', auth: 'Bearer access-token' });
    expect(text(main.querySelector('li.event-message-assistant .msg'))).toBe('Hello.');

    fill(labelled(main, 'Message'), 'still there?');
    button(main, 'Send').click();
    await vi.waitFor(() => expect(alerts(main)).toContain('agent Scout is paused'));
    leave();
  });
});
