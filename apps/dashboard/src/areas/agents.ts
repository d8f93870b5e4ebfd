import { openStream } from '../api.js';
import type { Area, Ctx } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, errorBox, field, h, input, json, replace, select, table, when, type Child } from '../dom.js';
import { BASE, href } from '../router.js';
import { readSse, SseParser } from '../sse.js';
import type { Page, Role } from '../types.js';

/**
 * Managed agents: the list (owners and admins create them), one agent with its sessions, and a
 * session with its live event stream (SSE), sending messages and interrupting the run.
 */
interface Agent {
  id: string;
  name: string;
  description: string | null;
  template_type: string;
  model: string;
  status: 'active' | 'paused' | 'archived';
  tools: string[];
  budget: { daily_credit_budget: number; used_today: number; remaining_today: number; resets_at: string };
  usage: { runs: number; credits: number };
  active_sessions: number;
  last_run_at: string | null;
  created_at: string;
}
interface Template {
  template_type: string;
  name: string;
  description: string;
}
interface Run {
  id: string;
  status: string;
  steps: number;
  credits: number;
  error: { code: string; message: string } | null;
}
interface Session {
  id: string;
  agent_id: string;
  title: string | null;
  status: 'idle' | 'running' | 'requires_action' | 'archived';
  source: string;
  current_run: Run | null;
  last_run: Run | null;
  queued_messages: number;
  message_count: number;
  last_seq: number;
  usage: { credits: number };
  created_at: string;
  last_activity_at: string | null;
}
interface SessionEvent {
  seq: number;
  session_id: string;
  run_id: string | null;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

const canConverse = (role: Role | null) => role === 'owner' || role === 'admin' || role === 'member';

export const agents: Area = {
  id: 'agents',
  routes: ['/agents'],
  nav: { label: 'Agents', path: '/agents', group: 'Agents' },
  title: () => 'Agents',
  async render(ctx, _p, main) {
    const page = await ctx.api.get<Page<Agent>>('/v1/agents', { query: { limit: 100 } });
    let create: HTMLElement | null = null;
    if (isAdmin(ctx.role)) {
      const templates = await ctx.api.get<Template[]>('/v1/agents/templates');
      const name = input({ name: 'name', required: true, maxlength: 100 });
      const template = select('template_type', templates.map((t) => [t.template_type, `${t.name} — ${t.description}`] as [string, string]), 'custom');
      const instructions = h('textarea', { name: 'instructions', rows: 3 }) as HTMLTextAreaElement;
      const errors = errorBox();
      const go = h('button', { type: 'submit' }, 'Create agent');
      create = h('form', { class: 'card', 'aria-labelledby': 'new-agent-h' }, h('h2', { id: 'new-agent-h' }, 'New agent'), field('Name', name), field('Template', template), field('Instructions (optional: the template’s otherwise)', instructions), errors, go);
      create.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(go, errors, async () => {
          const a = await ctx.api.post<Agent, '/v1/agents'>('/v1/agents', { name: name.value.trim(), template_type: template.value as 'custom' | 'researcher' | 'briefing' | 'curator' | 'monitor', ...(instructions.value.trim() ? { instructions: instructions.value } : {}) });
          ctx.navigate(href('agents', a.id));
        });
      });
    }
    replace(
      main,
      h('h1', {}, 'Agents'),
      h('section', { class: 'card', 'aria-labelledby': 'agents-h' }, h('h2', { id: 'agents-h' }, `Agents (${page.items.length})`),
        table<Agent>('Agents', [
          ['Agent', (a) => h('a', { href: href('agents', a.id) }, a.name)],
          ['Template', (a) => a.template_type],
          ['Model', (a) => a.model],
          ['Status', (a) => h('span', { class: `status status-${a.status}` }, a.status)],
          ['Credits today', (a) => `${a.budget.used_today} of ${a.budget.daily_credit_budget}`],
          ['Sessions', (a) => String(a.active_sessions)],
          ['Last run', (a) => when(a.last_run_at)],
        ], page.items, 'No agents yet.')),
      create,
    );
  },
};

export const agentPage: Area = {
  id: 'agent',
  routes: ['/agents/:id'],
  title: () => 'Agent',
  async render(ctx, { id }, main) {
    const [agent, sessions] = await Promise.all([
      ctx.api.get<Agent>('/v1/agents/{id}', { path: { id } }),
      ctx.api.get<Page<Session>>('/v1/agents/sessions', { query: { agent_id: id, limit: 100 } }),
    ]);
    document.title = `${agent.name} · Strata`;
    let start: HTMLElement | null = null;
    if (canConverse(ctx.role) && agent.status === 'active') {
      const title = input({ name: 'title', maxlength: 200 });
      const message = h('textarea', { name: 'message', rows: 3 }) as HTMLTextAreaElement;
      const errors = errorBox();
      const go = h('button', { type: 'submit' }, 'Start session');
      start = h('form', { class: 'card', 'aria-labelledby': 'new-session-h' }, h('h2', { id: 'new-session-h' }, 'New session'), field('Title (optional)', title), field('First message (optional)', message), errors, go);
      start.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(go, errors, async () => {
          const s = await ctx.api.post<Session, '/v1/agents/sessions'>('/v1/agents/sessions', { agent_id: id, ...(title.value.trim() ? { title: title.value.trim() } : {}), ...(message.value.trim() ? { message: message.value } : {}) });
          ctx.navigate(href('agents', 'sessions', s.id));
        });
      });
    }
    replace(
      main,
      h('p', { class: 'crumbs' }, h('a', { href: `${BASE}/agents` }, 'Agents'), ' / ', agent.name),
      h('h1', {}, agent.name, h('span', { class: `pill status-${agent.status}` }, agent.status)),
      h('section', { class: 'card' },
        h('dl', { class: 'fields' },
          [['template', agent.template_type], ['model', agent.model], ['tools', agent.tools.join(', ')], ['credits today', `${agent.budget.used_today} of ${agent.budget.daily_credit_budget} (resets ${when(agent.budget.resets_at)})`], ['runs', `${agent.usage.runs} (${agent.usage.credits} credits)`], ['created', when(agent.created_at)]]
            .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
        agent.description ? h('p', {}, agent.description) : null),
      h('section', { class: 'card', 'aria-labelledby': 'sessions-h' }, h('h2', { id: 'sessions-h' }, `Sessions (${sessions.items.length})`),
        table<Session>('Sessions', [
          ['Session', (s) => h('a', { href: href('agents', 'sessions', s.id) }, s.title ?? s.id)],
          ['Status', (s) => h('span', { class: `status status-${s.status}` }, s.status)],
          ['Source', (s) => s.source],
          ['Messages', (s) => String(s.message_count)],
          ['Last activity', (s) => when(s.last_activity_at ?? s.created_at)],
        ], sessions.items, 'No sessions yet.')),
      start,
    );
  },
};

/** One line of the event log: what a person reads first, the raw data behind a disclosure. */
function eventLine(e: SessionEvent): HTMLElement {
  const d = e.data;
  const text = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : '');
  let body: Child;
  switch (e.type) {
    case 'message.user':
      body = h('p', { class: 'msg msg-user' }, text('content'));
      break;
    case 'message.assistant':
      body = h('p', { class: 'msg msg-assistant' }, text('content'), d['interrupted'] ? h('span', { class: 'pill' }, 'interrupted') : null);
      break;
    case 'tool.call':
      body = h('p', {}, `calls ${text('name')}`);
      break;
    case 'tool.result':
      body = h('p', {}, `${text('name')} → ${text('status')}`);
      break;
    case 'run.failed':
      body = h('p', { class: 'error' }, (d['error'] as { message?: string } | undefined)?.message ?? 'failed');
      break;
    case 'run.cancelled':
      body = h('p', {}, `cancelled (${text('reason')})`);
      break;
    case 'input.requested':
      body = h('p', {}, `asks: ${text('prompt')}`);
      break;
    default:
      body = null;
  }
  return h('li', { class: `event event-${e.type.replace('.', '-')}`, 'data-seq': e.seq },
    h('span', { class: 'event-type' }, `#${e.seq} ${e.type}`), h('span', { class: 'muted' }, ` ${when(e.created_at)}`), body,
    h('details', {}, h('summary', {}, 'data'), json(d)));
}

export const sessionPage: Area = {
  id: 'agent-session',
  routes: ['/agents/sessions/:sid'],
  title: () => 'Agent session',
  async render(ctx, { sid }, main) {
    let session = await ctx.api.get<Session>('/v1/agents/sessions/{sid}', { path: { sid } });
    const agent = await ctx.api.get<Agent>('/v1/agents/{id}', { path: { id: session.agent_id } });
    const status = h('span', { class: 'pill', id: 'session-status' });
    const liveState = h('span', { class: 'muted', id: 'stream-state', role: 'status' }, 'connecting…');
    const log = h('ol', { class: 'events', 'aria-live': 'polite', 'aria-label': 'Session events' });
    const typing = h('p', { class: 'msg msg-assistant typing', hidden: true, 'aria-live': 'off' });
    const errors = errorBox();
    const showStatus = () => {
      status.textContent = session.status;
      status.className = `pill status-${session.status}`;
      interrupt.hidden = !(session.status === 'running' || session.status === 'requires_action');
      if (form) form.hidden = session.status === 'archived';
    };
    const refresh = async () => {
      session = await ctx.api.get<Session>('/v1/agents/sessions/{sid}', { path: { sid } });
      showStatus();
    };

    const interrupt = h('button', { type: 'button', class: 'danger', hidden: true }, 'Interrupt');
    const interrupted = h('p', { role: 'status', class: 'muted' });
    interrupt.addEventListener('click', () => void busy(interrupt, errors, async () => {
      const r = await ctx.api.post<{ interrupted: boolean; discarded_message_ids: string[] }, '/v1/agents/sessions/{sid}/interrupt'>('/v1/agents/sessions/{sid}/interrupt', {}, { path: { sid } });
      interrupted.textContent = r.interrupted ? `Interrupted${r.discarded_message_ids.length ? `; ${r.discarded_message_ids.length} queued message(s) discarded` : ''}.` : 'Nothing was running.';
      await refresh();
    }));

    let form: HTMLFormElement | null = null;
    if (canConverse(ctx.role)) {
      const content = h('textarea', { name: 'content', rows: 3, required: true }) as HTMLTextAreaElement;
      const send = h('button', { type: 'submit' }, 'Send');
      const f = h('form', { class: 'send-form', 'aria-label': 'Send a message' }, field('Message', content), h('div', { class: 'row' }, send, interrupt));
      f.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(send, errors, async () => {
          const r = await ctx.api.post<{ run_status: string; queue_position: number }, '/v1/agents/sessions/{sid}/message'>('/v1/agents/sessions/{sid}/message', { content: content.value }, { path: { sid } });
          content.value = '';
          interrupted.textContent = r.queue_position ? `Queued behind the current run (position ${r.queue_position}).` : '';
          await refresh();
        });
      });
      form = f;
    }

    replace(
      main,
      h('p', { class: 'crumbs' }, h('a', { href: `${BASE}/agents` }, 'Agents'), ' / ', h('a', { href: href('agents', agent.id) }, agent.name), ' / session'),
      h('h1', {}, session.title ?? 'Session', status),
      h('section', { class: 'card', 'aria-labelledby': 'events-h' }, h('h2', { id: 'events-h' }, 'Events ', liveState), log, typing),
      h('section', { class: 'card' }, form ?? h('p', { class: 'muted' }, 'Viewers follow sessions; members, admins and owners send messages.'), form ? null : interrupt, interrupted, errors),
    );
    showStatus();

    // the stream replays from the last event seen, then stays live; it reconnects after a
    // drop (from that event, so nothing is shown twice) until the person leaves the page
    let lastSeq = 0;
    const controller = new AbortController();
    const stillHere = () => main.isConnected && !controller.signal.aborted;
    const onEvent = (type: string, data: string, id: string | null) => {
      if (type === 'ready') {
        liveState.textContent = 'live';
        return;
      }
      const payload = JSON.parse(data) as SessionEvent & { delta?: string };
      if (type === 'message.delta') {
        typing.hidden = false;
        typing.textContent += String((payload.data as { delta?: string })?.delta ?? payload.delta ?? '');
        return;
      }
      if (id) lastSeq = Math.max(lastSeq, Number(id));
      if (type === 'message.assistant') {
        typing.hidden = true;
        typing.textContent = '';
      }
      if (log.querySelector(`[data-seq="${payload.seq}"]`)) return;
      log.appendChild(eventLine(payload));
      if (type.startsWith('run.') || type === 'message.user' || type === 'session.archived' || type === 'approval.requested' || type === 'input.requested') void refresh().catch((err) => errors.show(err));
    };
    // leaving the page (the main element replaced) ends the stream
    const watcher = setInterval(() => {
      if (!main.isConnected) controller.abort();
    }, 1000);
    let retryMs = 3000;
    try {
      while (stillHere()) {
        const parser = new SseParser();
        try {
          const res = await openStream(ctx.api, '/v1/agents/sessions/{sid}/stream', { path: { sid }, query: { after: lastSeq } }, controller.signal);
          await readSse(res, (m) => onEvent(m.event, m.data, m.id), parser);
          if (parser.retry) retryMs = parser.retry;
        } catch (err) {
          if (!stillHere()) return;
          errors.show(err);
          const statusCode = (err as { status?: number }).status ?? 0;
          if (statusCode >= 400 && statusCode < 500 && statusCode !== 429) return;
        }
        if (!stillHere() || session.status === 'archived') break;
        liveState.textContent = 'reconnecting…';
        await new Promise((r) => setTimeout(r, retryMs));
      }
    } finally {
      clearInterval(watcher);
      controller.abort();
      liveState.textContent = session.status === 'archived' ? 'ended' : 'closed';
    }
  },
};
