import type { Area, Ctx } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, checkField, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import { BASE, href } from '../router.js';
import type { Page } from '../types.js';

/**
 * Agents' schedules (REFERENCE §16.11): each fires a new session with its rendered message on
 * a cron. Everyone reads them and their latest firings; owners and admins create, change
 * (pause by disabling) and delete them.
 */
interface Schedule {
  id: string;
  agent_id: string;
  name: string;
  cron: string;
  timezone: string;
  message_template: string;
  enabled: boolean;
  overlap_policy: 'forbid' | 'allow' | 'replace';
  next_run_at: string | null;
  last_fired_at: string | null;
  last_outcome: string | null;
  last_session_id: string | null;
  fire_count: number;
  recent: { scheduled_for: string; fired_at: string | null; outcome: string; session_id: string | null; reason: string | null }[];
  created_at: string;
}
interface AgentRef {
  id: string;
  name: string;
  status: string;
}
type Body = { name: string; cron: string; timezone: string; message_template: string; enabled: boolean; overlap_policy: Schedule['overlap_policy'] };

/** The fields of a schedule, blank for a new one; `agents` adds the agent choice (fixed once created). */
function scheduleForm(title: string, submitLabel: string, s: Schedule | null, agents: AgentRef[] | null, save: (body: Body & { agent_id?: string }) => Promise<void>): HTMLFormElement {
  const agent = agents ? select('agent_id', agents.map((a) => [a.id, a.name] as [string, string])) : null;
  const name = input({ name: 'name', required: true, maxlength: 100, value: s?.name ?? '' });
  const cron = input({ name: 'cron', required: true, class: 'mono', value: s?.cron ?? '0 7 * * 1-5' });
  const timezone = input({ name: 'timezone', value: s?.timezone ?? 'UTC' });
  const template = h('textarea', { name: 'message_template', rows: 3, required: true, maxlength: 10000 }, s?.message_template ?? 'Brief me on what changed before {{date}}.') as HTMLTextAreaElement;
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: s ? s.enabled : true });
  const overlap = select('overlap_policy', [['forbid', 'skip while the previous run is going'], ['allow', 'run alongside'], ['replace', 'cancel the previous run']], s?.overlap_policy ?? 'forbid');
  const errors = errorBox();
  const go = h('button', { type: 'submit' }, submitLabel);
  const id = `sched-${s?.id ?? 'new'}-h`;
  const form = h('form', { class: s ? 'edit' : 'card', 'aria-labelledby': id }, h(s ? 'h3' : 'h2', { id }, title),
    agent ? field('Agent', agent) : null, field('Name', name), field('Cron (minute hour day month weekday, or @daily…)', cron), field('Time zone (IANA)', timezone),
    field('Message', template, 'Sent as the session’s first message; {{date}}, {{time}}, {{datetime}}, {{schedule_name}} and {{agent_name}} are filled in.'),
    checkField('Enabled', enabled), field('When the previous firing is still running', overlap), errors, go);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(go, errors, () => save({
      ...(agent ? { agent_id: agent.value } : {}),
      name: name.value.trim(), cron: cron.value.trim(), timezone: timezone.value.trim() || 'UTC', message_template: template.value, enabled: enabled.checked, overlap_policy: overlap.value as Schedule['overlap_policy'],
    }));
  });
  return form;
}

function row(ctx: Ctx, s: Schedule, again: () => Promise<void>): HTMLElement {
  const errors = errorBox();
  const fired = table<Schedule['recent'][number]>(`Latest firings of ${s.name}`, [
    ['Scheduled for', (r) => when(r.scheduled_for)],
    ['Outcome', (r) => h('span', { class: `status status-${r.outcome}` }, r.outcome)],
    ['Session', (r) => (r.session_id ? h('a', { href: href('agents', 'sessions', r.session_id) }, r.session_id) : '—')],
    ['Why', (r) => r.reason ?? ''],
  ], s.recent, 'Not fired yet.');
  let admin: HTMLElement | null = null;
  if (isAdmin(ctx.role)) {
    const remove = h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete ${s.name}` }, 'Delete');
    remove.addEventListener('click', () => void busy(remove, errors, async () => {
      if (!confirm(`Delete the schedule “${s.name}”?`)) return;
      await ctx.api.delete('/v1/agents/schedules/{id}', { path: { id: s.id } });
      await again();
    }));
    admin = h('div', {},
      h('details', {}, h('summary', {}, `Change ${s.name}`), scheduleForm(`Change ${s.name}`, 'Save changes', s, null, async (body) => {
        await ctx.api.patch<Schedule, '/v1/agents/schedules/{id}'>('/v1/agents/schedules/{id}', body, { path: { id: s.id } });
        await again();
      })),
      remove);
  }
  return h('li', { class: 'card schedule', 'data-id': s.id },
    h('div', { class: 'row' }, h('strong', {}, s.name), h('span', { class: `pill status-${s.enabled ? 'active' : 'paused'}` }, s.enabled ? 'enabled' : 'disabled'), h('a', { href: href('agents', s.agent_id) }, 'agent')),
    h('p', { class: 'muted' }, `${s.cron} (${s.timezone}) · next ${when(s.next_run_at)} · fired ${s.fire_count} time(s)${s.last_outcome ? `, last ${s.last_outcome}` : ''}`),
    h('p', { class: 'template' }, s.message_template),
    h('details', {}, h('summary', {}, `Latest firings (${s.recent.length})`), fired),
    admin,
    errors);
}

export const agentSchedules: Area = {
  id: 'agent-schedules',
  routes: ['/agents/schedules'],
  nav: { label: 'Agent schedules', path: '/agents/schedules', group: 'Agents' },
  title: () => 'Agent schedules',
  async render(ctx, _p, main, q) {
    const agentId = q.get('agent_id') ?? '';
    const [list, agents] = await Promise.all([
      ctx.api.get<Page<Schedule>>('/v1/agents/schedules', { query: { agent_id: agentId || undefined, limit: 100 } }),
      ctx.api.get<Page<AgentRef>>('/v1/agents', { query: { limit: 100 } }),
    ]);
    const again = async () => void (await agentSchedules.render!(ctx, {}, main, q));
    const filter = select('agent_id', [['', 'every agent'], ...agents.items.map((a) => [a.id, a.name] as [string, string])], agentId);
    filter.id = 'schedule-agent';
    filter.addEventListener('change', () => ctx.navigate(`${BASE}/agents/schedules${filter.value ? `?agent_id=${encodeURIComponent(filter.value)}` : ''}`));
    const live = agents.items.filter((a) => a.status !== 'archived');
    const create = isAdmin(ctx.role) && live.length
      ? scheduleForm('New schedule', 'Create schedule', null, live, async (body) => {
        await ctx.api.post<Schedule, '/v1/agents/schedules'>('/v1/agents/schedules', { ...body, agent_id: body.agent_id! });
        await again();
      })
      : null;
    replace(
      main,
      h('h1', {}, 'Agent schedules'),
      h('div', { class: 'row toolbar' }, h('label', { for: 'schedule-agent' }, 'Agent'), filter),
      h('section', { 'aria-labelledby': 'as-h' }, h('h2', { id: 'as-h' }, `Schedules (${list.items.length})`),
        list.items.length ? h('ul', { class: 'schedules plain' }, list.items.map((s) => row(ctx, s, again))) : h('p', { class: 'empty' }, 'No schedules yet.')),
      create ?? h('p', { class: 'muted' }, isAdmin(ctx.role) ? 'Create an agent first.' : 'Owners and admins create and change schedules.'),
    );
  },
};
