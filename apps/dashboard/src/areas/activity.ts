import type { Area, Ctx } from '../context.js';
import { errorBox, h, replace, select, when } from '../dom.js';
import { BASE, href } from '../router.js';
import type { Page } from '../types.js';

/**
 * The organization's agent activity (REFERENCE §16.12): the latest items from
 * `GET /v1/agents/activity`, then live over the WebSocket `/v1/agents/activity/ws`. A browser
 * cannot set headers on a WebSocket, so the access token goes in the first message
 * (`{type:"auth"}`); once `ready`, a `subscribe` with `after_seq` replays what arrived between
 * the list and the socket, so nothing is missed or shown twice. An expired token is refreshed
 * and the socket reopened; a dropped socket reconnects from the last item seen.
 */
export interface ActivityItem {
  seq: number;
  type: string;
  agent_id: string | null;
  agent_name: string | null;
  session_id: string | null;
  run_id: string | null;
  schedule_id: string | null;
  approval_id: string | null;
  connection_id: string | null;
  summary: string;
  data: Record<string, unknown>;
  created_at: string;
}
interface AgentRef {
  id: string;
  name: string;
}

export const ACTIVITY_TYPES = ['agent.created', 'agent.updated', 'agent.paused', 'agent.resumed', 'agent.archived', 'session.created', 'session.archived', 'run.started', 'run.completed', 'run.failed', 'run.cancelled', 'approval.requested', 'approval.resolved', 'input.requested', 'schedule.fired', 'schedule.skipped', 'budget.exhausted', 'mcp.drift', 'mcp.connection_status'];
const RECONNECT_MS = 3000;
/** items kept on the page; older ones are in the list route */
const KEEP = 200;

function itemLine(i: ActivityItem): HTMLElement {
  return h('li', { class: `activity activity-${i.type.replace(/\./g, '-')}`, 'data-seq': i.seq },
    h('span', { class: 'event-type' }, `#${i.seq} ${i.type}`), h('span', { class: 'muted' }, ` ${when(i.created_at)}`),
    h('p', {}, i.summary),
    h('p', { class: 'muted' },
      i.agent_id ? h('a', { href: href('agents', i.agent_id) }, i.agent_name ?? i.agent_id) : null,
      i.session_id ? [' · ', h('a', { href: href('agents', 'sessions', i.session_id) }, 'session')] : null,
      i.approval_id ? [' · ', h('a', { href: `${BASE}/review` }, 'review queue')] : null,
      i.connection_id ? [' · ', h('a', { href: `${BASE}/mcp` }, 'MCP connections')] : null));
}

/** The socket's address on this origin (ws: or wss: as the page). */
export function activitySocketUrl(): string {
  const url = new URL('/v1/agents/activity/ws', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

async function accessToken(ctx: Ctx): Promise<string | null> {
  if (!ctx.session.access) await ctx.session.refresh(ctx.api);
  return ctx.session.access;
}

export const activity: Area = {
  id: 'agent-activity',
  routes: ['/agents/activity'],
  nav: { label: 'Activity', path: '/agents/activity', group: 'Agents' },
  title: () => 'Agent activity',
  async render(ctx, _p, main, q) {
    const agentId = q.get('agent_id') ?? '';
    const type = q.get('type') ?? '';
    const [first, agents] = await Promise.all([
      ctx.api.get<Page<ActivityItem>>('/v1/agents/activity', { query: { agent_id: agentId || undefined, types: type || undefined, limit: 50 } }),
      ctx.api.get<Page<AgentRef>>('/v1/agents', { query: { limit: 100, include_archived: true } }),
    ]);
    const go = (change: Record<string, string>) => {
      const next = new URLSearchParams({ agent_id: agentId, type, ...change });
      for (const [k, v] of [...next]) if (!v) next.delete(k);
      ctx.navigate(`${BASE}/agents/activity${next.size ? `?${next}` : ''}`);
    };
    const agentSel = select('agent_id', [['', 'every agent'], ...agents.items.map((a) => [a.id, a.name] as [string, string])], agentId);
    agentSel.id = 'activity-agent';
    agentSel.addEventListener('change', () => go({ agent_id: agentSel.value }));
    const typeSel = select('type', [['', 'every kind'], ...ACTIVITY_TYPES.map((t) => [t, t] as [string, string])], type);
    typeSel.id = 'activity-type';
    typeSel.addEventListener('change', () => go({ type: typeSel.value }));
    const state = h('span', { class: 'muted', id: 'activity-state', role: 'status' }, 'connecting…');
    const list = h('ol', { class: 'events activity-feed', 'aria-live': 'polite', 'aria-label': 'Activity, newest first', reversed: true });
    const errors = errorBox();
    let lastSeq = 0;
    const add = (item: ActivityItem, live: boolean) => {
      if (list.querySelector(`[data-seq="${item.seq}"]`)) return;
      lastSeq = Math.max(lastSeq, item.seq);
      const line = itemLine(item);
      if (live) list.prepend(line);
      else list.append(line);
      while (list.children.length > KEEP) list.lastElementChild!.remove();
    };
    for (const item of first.items) add(item, false);
    replace(
      main,
      h('h1', {}, 'Agent activity'),
      h('div', { class: 'row toolbar' }, h('label', { for: 'activity-agent' }, 'Agent'), agentSel, h('label', { for: 'activity-type' }, 'Kind'), typeSel),
      h('section', { class: 'card', 'aria-labelledby': 'activity-h' }, h('h2', { id: 'activity-h' }, 'Latest ', state), errors,
        first.items.length ? null : h('p', { class: 'empty', id: 'activity-empty' }, 'Nothing yet: new activity appears here as it happens.'), list),
    );

    let socket: WebSocket | null = null;
    let stopped = false;
    let retried401 = false;
    const stop = () => {
      stopped = true;
      clearInterval(watcher);
      socket?.close(1000);
    };
    // leaving the page (the main element replaced) closes the socket
    const watcher = setInterval(() => {
      if (!main.isConnected) stop();
    }, 1000);
    const reconnect = (after: number) => {
      if (stopped) return;
      state.textContent = 'reconnecting…';
      setTimeout(() => void connect(), after);
    };
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const token = await accessToken(ctx);
      if (!token || stopped) return;
      const ws = new WebSocket(activitySocketUrl());
      socket = ws;
      ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'auth', token })));
      ws.addEventListener('message', (e) => {
        let m: { type: string; item?: ActivityItem; code?: string; error?: string };
        try {
          m = JSON.parse(String(e.data)) as typeof m;
        } catch {
          return;
        }
        if (m.type === 'ready') {
          retried401 = false;
          state.textContent = 'live';
          errors.clear();
          ws.send(JSON.stringify({ type: 'subscribe', after_seq: lastSeq, ...(agentId ? { agent_ids: [agentId] } : {}), ...(type ? { types: [type] } : {}) }));
        } else if (m.type === 'activity' && m.item) {
          main.querySelector('#activity-empty')?.remove();
          add(m.item, true);
        } else if (m.type === 'error') {
          if (m.code === 'token_expired') ctx.session.access = null;
          else errors.show(m.error ?? m.code);
        }
      });
      ws.addEventListener('close', (e) => {
        if (socket !== ws || stopped) return;
        socket = null;
        if (e.code === 4401 && !retried401) {
          // the access token expired or was refused: one refresh, then a new socket
          retried401 = true;
          ctx.session.access = null;
          reconnect(0);
        } else if (e.code === 4401 || e.code === 4403) {
          state.textContent = 'closed';
          errors.show(e.reason || (e.code === 4403 ? 'Your plan or role does not include the activity feed.' : 'Your session has ended: sign in again.'));
        } else reconnect(RECONNECT_MS);
      });
    };
    await connect();
  },
};
