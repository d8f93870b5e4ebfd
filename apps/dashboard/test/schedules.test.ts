import { describe, expect, it, vi } from 'vitest';
import { agentSchedules } from '../src/areas/agent-schedules';
import { briefingSchedulePage, briefingSchedules } from '../src/areas/briefing-schedules';
import { alerts, button, buttons, check, ctxFor, FakeApi, fill, labelled, page, refusal, render, text } from './support/fake-api';

const project = { uid: 'n_proj', label: 'Orion', node_type: 'Project', layer: 'intent', summary: null, props: {}, version: 1, created_at: 0, updated_at: 0, tombstone_at: null };
const bs = (over: Record<string, unknown> = {}) => ({
  id: 'bs1', project_uid: 'n_proj', channel: 'in_app', recipient: 'user:user-1', cron: '0 7 * * MON-FRI', interval_secs: null, timezone: 'Europe/Paris', mode: 'auto',
  only_on_change: true, status: 'active', paused_reason: null, next_run_at: '2030-01-16T06:00:00Z', consecutive_failures: 0, secret_hint: null, created_by: 'user-1',
  created_at: '2030-01-15T00:00:00Z', updated_at: '2030-01-15T00:00:00Z', ...over,
});
const run = (id: string, status: string) => ({ id, schedule_id: 'bs1', trigger: 'send_now', status, scheduled_for: '2030-01-15T12:00:00Z', started_at: null, completed_at: null, brief_version: status === 'delivered' ? 3 : null, reused: null, material_change_count: 2, skip_reason: null, attempts: 1, error: null, http_status: null });

describe('briefing schedules', () => {
  it('creates a webhook schedule on an interval and shows its signing secret once', async () => {
    const api = new FakeApi();
    const created: unknown[] = [];
    api.on('get', '/v1/briefings/schedules', () => page(created));
    api.on('get', '/nodes', page([project]));
    api.on('post', '/v1/briefings/schedules', () => {
      created.push(bs({ channel: 'webhook', recipient: 'https://hooks.example.com/b', cron: null, interval_secs: 7200, secret_hint: 'Zm9v' }));
      return { ...(created[0] as object), signing_secret: 'whsec_c2VjcmV0' };
    });
    const main = await render(briefingSchedules, ctxFor(api, 'admin'), {}, 'project_uid=n_proj');
    expect(api.to('get', '/v1/briefings/schedules')[0].query).toMatchObject({ project_uid: 'n_proj' });
    expect(labelled(main, 'Recipient').value).toBe('user:user-1');
    fill(labelled(main, 'Channel'), 'webhook');
    fill(labelled(main, 'Recipient'), 'https://hooks.example.com/b');
    fill(labelled(main, 'Cadence'), 'interval');
    expect(labelled(main, 'Cron (minute hour day month weekday)').closest('.field')!.hasAttribute('hidden')).toBe(true);
    fill(labelled(main, 'Every (hours)'), '2');
    button(main, 'Save schedule').click();
    await vi.waitFor(() => expect(labelled(main, 'Signing secret').value).toBe('whsec_c2VjcmV0'));
    expect(api.to('post', '/v1/briefings/schedules')[0].body).toEqual({ project_uid: 'n_proj', channel: 'webhook', recipient: 'https://hooks.example.com/b', interval_secs: 7200, timezone: 'UTC', mode: 'auto', only_on_change: true, paused: false });
    expect(text(main.querySelector('table'))).toContain('Orion → https://hooks.example.com/b');
  });

  it('sends now, pauses, edits the cron and deletes, and shows the runs', async () => {
    const api = new FakeApi();
    let current: Record<string, unknown> = bs({ runs: [run('r1', 'delivered')] });
    api.on('get', '/v1/briefings/schedules/{id}', () => current);
    api.on('post', '/v1/briefings/schedules/{id}/send-now', () => {
      current = { ...current, runs: [run('r2', 'pending'), ...(current.runs as object[])] };
      return { run: run('r2', 'pending') };
    });
    api.on('patch', '/v1/briefings/schedules/{id}', (c) => (current = { ...current, ...(c.body as object), status: (c.body as { paused?: boolean }).paused ? 'paused' : current.status }));
    api.on('delete', '/v1/briefings/schedules/{id}', { id: 'bs1', deleted: true });
    const ctx = ctxFor(api, 'owner');
    const main = await render(briefingSchedulePage, ctx, { id: 'bs1' });
    expect(text(main.querySelector('[data-run=r1]'))).toBe('delivered');

    button(main, 'Send now').click();
    await vi.waitFor(() => expect(text(main.querySelector('#schedule-outcome'))).toBe('Run r2 pending.'));
    expect(text(main.querySelector('[data-run=r2]'))).toBe('pending');

    button(main, 'Pause').click();
    await vi.waitFor(() => expect(text(main.querySelector('#schedule-status'))).toBe('paused'));
    expect(api.to('patch', '/v1/briefings/schedules/{id}')[0].body).toEqual({ paused: true });
    expect(buttons(main, 'Resume')).toHaveLength(1);

    fill(labelled(main, 'Cron (minute hour day month weekday)'), '30 6 * * *');
    button(main, 'Save changes').click();
    await vi.waitFor(() => expect(text(main.querySelector('#schedule-outcome'))).toBe('Saved.'));
    expect(api.to('patch', '/v1/briefings/schedules/{id}')[1].body).toEqual({ cron: '30 6 * * *', timezone: 'Europe/Paris', mode: 'auto', only_on_change: true });

    vi.stubGlobal('confirm', () => true);
    button(main, 'Delete').click();
    await vi.waitFor(() => expect(ctx.navigate).toHaveBeenCalledWith('/app/briefings/schedules?project_uid=n_proj'));
    expect(api.to('delete', '/v1/briefings/schedules/{id}')[0].params).toEqual({ id: 'bs1' });
  });

  it('gives a viewer the runs without controls, and shows a refused send-now’s message', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/briefings/schedules/{id}', bs({ runs: [] }));
    const viewer = await render(briefingSchedulePage, ctxFor(api, 'viewer'), { id: 'bs1' });
    expect(buttons(viewer, /^(Send now|Pause|Delete|Save changes)$/)).toEqual([]);

    api.on('post', '/v1/briefings/schedules/{id}/send-now', refusal(409, 'run_active', 'a run of this schedule is already pending'));
    const main = await render(briefingSchedulePage, ctxFor(api, 'admin'), { id: 'bs1' });
    button(main, 'Send now').click();
    await vi.waitFor(() => expect(alerts(main)).toEqual(['a run of this schedule is already pending']));
  });
});

const as = (over: Record<string, unknown> = {}) => ({
  id: 'as1', org_id: 'org-1', agent_id: 'ag1', name: 'Morning digest', cron: '0 7 * * 1-5', timezone: 'UTC', message_template: 'Digest for {{date}}', enabled: true, overlap_policy: 'forbid',
  next_run_at: '2030-01-16T07:00:00Z', last_fired_at: '2030-01-15T07:00:00Z', last_outcome: 'started', last_session_id: 'se1', fire_count: 1,
  recent: [{ scheduled_for: '2030-01-15T07:00:00Z', fired_at: '2030-01-15T07:00:00Z', outcome: 'started', session_id: 'se1', reason: null }],
  created_by: 'user-1', created_at: '2030-01-14T00:00:00Z', updated_at: '2030-01-14T00:00:00Z', ...over,
});

describe('agent schedules', () => {
  it('lists schedules with their latest firings, creates, changes and deletes one', async () => {
    const api = new FakeApi();
    let list = [as()];
    api.on('get', '/v1/agents/schedules', () => page(list));
    api.on('get', '/v1/agents', page([{ id: 'ag1', name: 'Scout', status: 'active' }, { id: 'ag2', name: 'Old', status: 'archived' }]));
    api.on('post', '/v1/agents/schedules', (c) => {
      list = [...list, as({ id: 'as2', ...(c.body as object), recent: [] })];
      return list[1];
    });
    api.on('patch', '/v1/agents/schedules/{id}', (c) => (list = list.map((s) => (s.id === c.params.id ? { ...s, ...(c.body as object) } : s)))[0]);
    api.on('delete', '/v1/agents/schedules/{id}', (c) => {
      list = list.filter((s) => s.id !== c.params.id);
      return { id: c.params.id, deleted: true };
    });
    const main = await render(agentSchedules, ctxFor(api, 'owner'));
    expect(text(main.querySelector('[data-id=as1]'))).toContain('Latest firings (1)');
    expect([...labelled<HTMLSelectElement>(main, 'Agent').querySelectorAll('option')].map(text)).toEqual(['every agent', 'Scout', 'Old']);
    const create = main.querySelector('form[aria-labelledby=sched-new-h]')!;
    expect([...labelled<HTMLSelectElement>(create, 'Agent').options].map(text)).toEqual(['Scout']);
    fill(labelled(create, 'Name'), 'Weekly review');
    fill(labelled(create, 'Cron (minute hour day month weekday, or @daily…)'), '@weekly');
    fill(labelled(create, 'Message'), 'Review the week of {{date}}');
    button(create, 'Create schedule').click();
    await vi.waitFor(() => expect(main.querySelectorAll('li.schedule')).toHaveLength(2));
    expect(api.to('post', '/v1/agents/schedules')[0].body).toEqual({ agent_id: 'ag1', name: 'Weekly review', cron: '@weekly', timezone: 'UTC', message_template: 'Review the week of {{date}}', enabled: true, overlap_policy: 'forbid' });

    const first = main.querySelector('[data-id=as1]')!;
    check(labelled<HTMLInputElement>(first, 'Enabled'), false);
    button(first, 'Save changes').click();
    await vi.waitFor(() => expect(text(main.querySelector('[data-id=as1] .pill'))).toBe('disabled'));
    expect(api.to('patch', '/v1/agents/schedules/{id}')[0]).toMatchObject({ params: { id: 'as1' }, body: { enabled: false, name: 'Morning digest' } });

    vi.stubGlobal('confirm', () => true);
    button(main, 'Delete Weekly review').click();
    await vi.waitFor(() => expect(main.querySelectorAll('li.schedule')).toHaveLength(1));
  });

  it('shows a refused cron’s message and gives a member no controls', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/agents/schedules', page([as()]));
    api.on('get', '/v1/agents', page([{ id: 'ag1', name: 'Scout', status: 'active' }]));
    api.on('post', '/v1/agents/schedules', refusal(400, 'invalid_field', 'cron fires more often than every 300 s'));
    const main = await render(agentSchedules, ctxFor(api, 'admin'));
    const create = main.querySelector('form[aria-labelledby=sched-new-h]')!;
    fill(labelled(create, 'Name'), 'Too often');
    fill(labelled(create, 'Cron (minute hour day month weekday, or @daily…)'), '* * * * *');
    button(create, 'Create schedule').click();
    await vi.waitFor(() => expect(alerts(create)).toEqual(['cron fires more often than every 300 s']));

    const member = await render(agentSchedules, ctxFor(api, 'member'));
    expect(buttons(member, /^(Create schedule|Save changes|Delete)/)).toEqual([]);
    expect(text(member)).toContain('Owners and admins create and change schedules.');
  });
});
