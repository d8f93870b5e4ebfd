import type { components } from '../../../../packages/client/src/schema';
import { useEffect, useRef, useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { when } from '../format.js';
import { BASE, href } from '../router.js';
import type { Page } from '../types.js';
import { ErrorBox, Select, useLoad } from '../ui.js';

/**
 * The organization's agent activity (REFERENCE §16.12): the latest items from
 * `GET /v1/agents/activity`, then live over the WebSocket `/v1/agents/activity/ws`. A browser
 * cannot set headers on a WebSocket, so the access token goes in the first message
 * (`{type:"auth"}`); once `ready`, a `subscribe` with `after_seq` replays what arrived between
 * the list and the socket, so nothing is missed or shown twice. An expired token is refreshed
 * and the socket reopened; a dropped socket reconnects from the last item seen.
 */
export type ActivityItem = components['schemas']['ActivityItem'];
interface AgentRef {
  id: string;
  name: string;
}

export const ACTIVITY_TYPES = ['agent.created', 'agent.updated', 'agent.paused', 'agent.resumed', 'agent.archived', 'session.created', 'session.archived', 'run.started', 'run.completed', 'run.failed', 'run.cancelled', 'approval.requested', 'approval.resolved', 'input.requested', 'schedule.fired', 'schedule.skipped', 'budget.exhausted', 'mcp.drift', 'mcp.connection_status'];
const RECONNECT_MS = 3000;
/** items kept on the page; older ones are in the list route */
const KEEP = 200;

function ItemLine({ i }: { i: ActivityItem }) {
  return (
    <li className={`activity activity-${i.type.replace(/\./g, '-')}`} data-seq={i.seq}>
      <span className="event-type">{`#${i.seq} ${i.type}`}</span>
      <span className="muted">{` ${when(i.created_at)}`}</span>
      <p>{i.summary}</p>
      <p className="muted">
        {i.agent_id ? <a href={href('agents', i.agent_id)}>{i.agent_name ?? i.agent_id}</a> : null}
        {i.session_id ? (
          <>
            {' · '}
            <a href={href('agents', 'sessions', i.session_id)}>session</a>
          </>
        ) : null}
        {i.approval_id ? (
          <>
            {' · '}
            <a href={`${BASE}/review`}>review queue</a>
          </>
        ) : null}
        {i.connection_id ? (
          <>
            {' · '}
            <a href={`${BASE}/mcp`}>MCP connections</a>
          </>
        ) : null}
      </p>
    </li>
  );
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

/** Newest first, each seq once, at most KEEP. */
function merge(items: ActivityItem[], more: ActivityItem[]): ActivityItem[] {
  const seen = new Set(items.map((i) => i.seq));
  const fresh = more.filter((i) => !seen.has(i.seq) && seen.add(i.seq));
  return fresh.length ? [...fresh.reverse(), ...items].slice(0, KEEP) : items;
}

/** Follows the feed over the socket from `after` on, until the page is left. */
function useLiveFeed(ctx: Ctx, first: Page<ActivityItem> | undefined, filter: { agentId: string; type: string }) {
  const [items, setItems] = useState<ActivityItem[]>([]);
  const [state, setState] = useState('connecting…');
  const [error, setError] = useState<unknown>(null);
  const lastSeq = useRef(0);
  useEffect(() => {
    if (!first) return;
    setItems(first.items.slice(0, KEEP));
    lastSeq.current = Math.max(0, ...first.items.map((i) => i.seq));
    let socket: WebSocket | null = null;
    let stopped = false;
    let retried401 = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reconnect = (after: number) => {
      if (stopped) return;
      setState('reconnecting…');
      timer = setTimeout(() => void connect(), after);
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
          setState('live');
          setError(null);
          ws.send(JSON.stringify({ type: 'subscribe', after_seq: lastSeq.current, ...(filter.agentId ? { agent_ids: [filter.agentId] } : {}), ...(filter.type ? { types: [filter.type] } : {}) }));
        } else if (m.type === 'activity' && m.item) {
          const item = m.item;
          lastSeq.current = Math.max(lastSeq.current, item.seq);
          setItems((old) => merge(old, [item]));
        } else if (m.type === 'error') {
          if (m.code === 'token_expired') ctx.session.access = null;
          else setError(new Error(m.error ?? m.code));
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
          setState('closed');
          setError(new Error(e.reason || (e.code === 4403 ? 'Your plan or role does not include the activity feed.' : 'Your session has ended: sign in again.')));
        } else reconnect(RECONNECT_MS);
      });
    };
    void connect();
    // leaving the page closes the socket
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close(1000);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [first]);
  return { items, state, error };
}

function Activity({ ctx, query: q }: PageProps) {
  const agentId = q.get('agent_id') ?? '';
  const type = q.get('type') ?? '';
  const { data, error: loadError } = useLoad(
    () =>
      Promise.all([
        ctx.api.get<Page<ActivityItem>>('/v1/agents/activity', { query: { agent_id: agentId || undefined, types: type || undefined, limit: 50 } }),
        ctx.api.get<Page<AgentRef>>('/v1/agents', { query: { limit: 100, include_archived: true } }),
      ]),
    [],
  );
  const feed = useLiveFeed(ctx, data?.[0], { agentId, type });
  if (!data) return <ErrorBox error={loadError} />;
  const agents = data[1];
  const go = (change: Record<string, string>) => {
    const next = new URLSearchParams({ agent_id: agentId, type, ...change });
    for (const [k, v] of [...next]) if (!v) next.delete(k);
    ctx.navigate(`${BASE}/agents/activity${next.size ? `?${next}` : ''}`);
  };
  return (
    <>
      <h1>Agent activity</h1>
      <div className="row toolbar">
        <label htmlFor="activity-agent">Agent</label>
        <Select id="activity-agent" name="agent_id" value={agentId} onChange={(e) => go({ agent_id: e.currentTarget.value })} options={[['', 'every agent'], ...agents.items.map((a) => [a.id, a.name] as const)]} />
        <label htmlFor="activity-type">Kind</label>
        <Select id="activity-type" name="type" value={type} onChange={(e) => go({ type: e.currentTarget.value })} options={[['', 'every kind'], ...ACTIVITY_TYPES.map((t) => [t, t] as const)]} />
      </div>
      <section className="card" aria-labelledby="activity-h">
        <h2 id="activity-h">
          {'Latest '}
          <span className="muted" id="activity-state" role="status">
            {feed.state}
          </span>
        </h2>
        <ErrorBox error={feed.error} />
        {feed.items.length ? null : (
          <p className="empty" id="activity-empty">
            Nothing yet: new activity appears here as it happens.
          </p>
        )}
        <ol className="events activity-feed" aria-live="polite" aria-label="Activity, newest first" reversed>
          {feed.items.map((i) => (
            <ItemLine key={i.seq} i={i} />
          ))}
        </ol>
      </section>
    </>
  );
}

export const activity: Area = {
  id: 'agent-activity',
  routes: ['/agents/activity'],
  nav: { label: 'Activity', path: '/agents/activity', group: 'Agents' },
  title: () => 'Agent activity',
  Page: Activity,
};
