import { useEffect, useRef, useState, type ReactNode } from 'react';
import { openStream } from '../api.js';
import type { Area, Ctx, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import { BASE, href } from '../router.js';
import { readSse, SseParser } from '../sse.js';
import type { Page, Role } from '../types.js';
import { BusyButton, ErrorBox, Field, Json, Select, Table, useAction, useLoad } from '../ui.js';

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
type TemplateType = 'custom' | 'researcher' | 'briefing' | 'curator' | 'monitor';

function NewAgent({ ctx, templates }: { ctx: Ctx; templates: Template[] }) {
  const [name, setName] = useState('');
  const [template, setTemplate] = useState('custom');
  const [instructions, setInstructions] = useState('');
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="new-agent-h"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const a = await ctx.api.post<Agent, '/v1/agents'>('/v1/agents', { name: name.trim(), template_type: template as TemplateType, ...(instructions.trim() ? { instructions } : {}) });
          ctx.navigate(href('agents', a.id));
        });
      }}
    >
      <h2 id="new-agent-h">New agent</h2>
      <Field label="Name">
        <input type="text" name="name" required maxLength={100} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Template">
        <Select name="template_type" value={template} onChange={(e) => setTemplate(e.currentTarget.value)} options={templates.map((t) => [t.template_type, `${t.name} — ${t.description}`] as const)} />
      </Field>
      <Field label="Instructions (optional: the template’s otherwise)">
        <textarea name="instructions" rows={3} value={instructions} onChange={(e) => setInstructions(e.currentTarget.value)} />
      </Field>
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Create agent
      </button>
    </form>
  );
}

function Agents({ ctx }: PageProps) {
  const admin = isAdmin(ctx.role);
  const { data, error } = useLoad(
    () => Promise.all([ctx.api.get<Page<Agent>>('/v1/agents', { query: { limit: 100 } }), admin ? ctx.api.get<Template[]>('/v1/agents/templates') : Promise.resolve(null)]),
    [],
  );
  if (!data) return <ErrorBox error={error} />;
  const [page, templates] = data;
  return (
    <>
      <h1>Agents</h1>
      <section className="card" aria-labelledby="agents-h">
        <h2 id="agents-h">{`Agents (${page.items.length})`}</h2>
        <Table<Agent>
          caption="Agents"
          rowKey={(a) => a.id}
          columns={[
            ['Agent', (a) => <a href={href('agents', a.id)}>{a.name}</a>],
            ['Template', (a) => a.template_type],
            ['Model', (a) => a.model],
            ['Status', (a) => <span className={`status status-${a.status}`}>{a.status}</span>],
            ['Credits today', (a) => `${a.budget.used_today} of ${a.budget.daily_credit_budget}`],
            ['Sessions', (a) => String(a.active_sessions)],
            ['Last run', (a) => when(a.last_run_at)],
          ]}
          items={page.items}
          empty="No agents yet."
        />
      </section>
      {templates ? <NewAgent ctx={ctx} templates={templates} /> : null}
    </>
  );
}

export const agents: Area = {
  id: 'agents',
  routes: ['/agents'],
  nav: { label: 'Agents', path: '/agents', group: 'Agents' },
  title: () => 'Agents',
  Page: Agents,
};

function StartSession({ ctx, agentId }: { ctx: Ctx; agentId: string }) {
  const [title, setTitle] = useState('');
  const [message, setMessage] = useState('');
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="new-session-h"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const s = await ctx.api.post<Session, '/v1/agents/sessions'>('/v1/agents/sessions', { agent_id: agentId, ...(title.trim() ? { title: title.trim() } : {}), ...(message.trim() ? { message } : {}) });
          ctx.navigate(href('agents', 'sessions', s.id));
        });
      }}
    >
      <h2 id="new-session-h">New session</h2>
      <Field label="Title (optional)">
        <input type="text" name="title" maxLength={200} value={title} onChange={(e) => setTitle(e.currentTarget.value)} />
      </Field>
      <Field label="First message (optional)">
        <textarea name="message" rows={3} value={message} onChange={(e) => setMessage(e.currentTarget.value)} />
      </Field>
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Start session
      </button>
    </form>
  );
}

function AgentPage({ ctx, params: { id } }: PageProps) {
  const { data, error } = useLoad(
    () => Promise.all([ctx.api.get<Agent>('/v1/agents/{id}', { path: { id } }), ctx.api.get<Page<Session>>('/v1/agents/sessions', { query: { agent_id: id, limit: 100 } })]),
    [],
  );
  useEffect(() => {
    if (data) document.title = `${data[0].name} · Strata`;
  }, [data]);
  if (!data) return <ErrorBox error={error} />;
  const [agent, sessions] = data;
  return (
    <>
      <p className="crumbs">
        <a href={`${BASE}/agents`}>Agents</a>
        {` / ${agent.name}`}
      </p>
      <h1>
        {agent.name}
        <span className={`pill status-${agent.status}`}>{agent.status}</span>
      </h1>
      <section className="card">
        <dl className="fields">
          {[
            ['template', agent.template_type],
            ['model', agent.model],
            ['tools', agent.tools.join(', ')],
            ['credits today', `${agent.budget.used_today} of ${agent.budget.daily_credit_budget} (resets ${when(agent.budget.resets_at)})`],
            ['runs', `${agent.usage.runs} (${agent.usage.credits} credits)`],
            ['created', when(agent.created_at)],
          ].map(([k, v]) => [<dt key={`t-${k}`}>{k}</dt>, <dd key={`d-${k}`}>{v}</dd>])}
        </dl>
        {agent.description ? <p>{agent.description}</p> : null}
      </section>
      <section className="card" aria-labelledby="sessions-h">
        <h2 id="sessions-h">{`Sessions (${sessions.items.length})`}</h2>
        <Table<Session>
          caption="Sessions"
          rowKey={(s) => s.id}
          columns={[
            ['Session', (s) => <a href={href('agents', 'sessions', s.id)}>{s.title ?? s.id}</a>],
            ['Status', (s) => <span className={`status status-${s.status}`}>{s.status}</span>],
            ['Source', (s) => s.source],
            ['Messages', (s) => String(s.message_count)],
            ['Last activity', (s) => when(s.last_activity_at ?? s.created_at)],
          ]}
          items={sessions.items}
          empty="No sessions yet."
        />
      </section>
      {canConverse(ctx.role) && agent.status === 'active' ? <StartSession ctx={ctx} agentId={id} /> : null}
    </>
  );
}

export const agentPage: Area = {
  id: 'agent',
  routes: ['/agents/:id'],
  title: () => 'Agent',
  Page: AgentPage,
};

/** One line of the event log: what a person reads first, the raw data behind a disclosure. */
function EventLine({ e }: { e: SessionEvent }) {
  const d = e.data;
  const text = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : '');
  let body: ReactNode = null;
  switch (e.type) {
    case 'message.user':
      body = <p className="msg msg-user">{text('content')}</p>;
      break;
    case 'message.assistant':
      body = (
        <p className="msg msg-assistant">
          {text('content')}
          {d['interrupted'] ? <span className="pill">interrupted</span> : null}
        </p>
      );
      break;
    case 'tool.call':
      body = <p>{`calls ${text('name')}`}</p>;
      break;
    case 'tool.result':
      body = <p>{`${text('name')} → ${text('status')}`}</p>;
      break;
    case 'run.failed':
      body = <p className="error">{(d['error'] as { message?: string } | undefined)?.message ?? 'failed'}</p>;
      break;
    case 'run.cancelled':
      body = <p>{`cancelled (${text('reason')})`}</p>;
      break;
    case 'input.requested':
      body = <p>{`asks: ${text('prompt')}`}</p>;
      break;
  }
  return (
    <li className={`event event-${e.type.replace('.', '-')}`} data-seq={e.seq}>
      <span className="event-type">{`#${e.seq} ${e.type}`}</span>
      <span className="muted">{` ${when(e.created_at)}`}</span>
      {body}
      <details>
        <summary>data</summary>
        <Json value={d} />
      </details>
    </li>
  );
}

function SendMessage({ ctx, sid, sent, onError, interrupt }: { ctx: Ctx; sid: string; sent(note: string): Promise<void>; onError(e: unknown): void; interrupt: ReactNode }) {
  const [content, setContent] = useState('');
  const action = useAction();
  useEffect(() => onError(action.error), [action.error, onError]);
  return (
    <form
      className="send-form"
      aria-label="Send a message"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const r = await ctx.api.post<{ run_status: string; queue_position: number }, '/v1/agents/sessions/{sid}/message'>('/v1/agents/sessions/{sid}/message', { content }, { path: { sid } });
          setContent('');
          await sent(r.queue_position ? `Queued behind the current run (position ${r.queue_position}).` : '');
        });
      }}
    >
      <Field label="Message">
        <textarea name="content" rows={3} required value={content} onChange={(e) => setContent(e.currentTarget.value)} />
      </Field>
      <div className="row">
        <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
          Send
        </button>
        {interrupt}
      </div>
    </form>
  );
}

/** Events that change the session's status: the page reads the session again after each. */
const changesStatus = (type: string) => type.startsWith('run.') || type === 'message.user' || type === 'session.archived' || type === 'approval.requested' || type === 'input.requested';

function SessionPage({ ctx, params: { sid } }: PageProps) {
  const { data, error: loadError, setData } = useLoad(async () => {
    const session = await ctx.api.get<Session>('/v1/agents/sessions/{sid}', { path: { sid } });
    const agent = await ctx.api.get<Agent>('/v1/agents/{id}', { path: { id: session.agent_id } });
    return { session, agent };
  }, []);
  const [events, setEvents] = useState<SessionEvent[]>([]);
  const [typing, setTyping] = useState('');
  const [liveState, setLiveState] = useState('connecting…');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const latest = useRef(data);
  latest.current = data;
  const refresh = async () => {
    const session = await ctx.api.get<Session>('/v1/agents/sessions/{sid}', { path: { sid } });
    if (latest.current) setData({ ...latest.current, session });
  };
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  const loaded = Boolean(data);

  // the stream replays from the last event seen, then stays live; it reconnects after a
  // drop (from that event, so nothing is shown twice) until the person leaves the page
  useEffect(() => {
    if (!loaded) return;
    let lastSeq = 0;
    const seen = new Set<number>();
    const controller = new AbortController();
    const stillHere = () => !controller.signal.aborted;
    const onEvent = (type: string, raw: string, id: string | null) => {
      if (type === 'ready') {
        setLiveState('live');
        return;
      }
      const payload = JSON.parse(raw) as SessionEvent & { delta?: string };
      if (type === 'message.delta') {
        setTyping((t) => t + String((payload.data as { delta?: string })?.delta ?? payload.delta ?? ''));
        return;
      }
      if (id) lastSeq = Math.max(lastSeq, Number(id));
      if (type === 'message.assistant') setTyping('');
      if (seen.has(payload.seq)) return;
      seen.add(payload.seq);
      setEvents((old) => [...old, payload]);
      if (changesStatus(type)) void refreshRef.current().catch((err) => stillHere() && setError(err));
    };
    void (async () => {
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
            setError(err);
            const statusCode = (err as { status?: number }).status ?? 0;
            if (statusCode >= 400 && statusCode < 500 && statusCode !== 429) return;
          }
          if (!stillHere() || latest.current?.session.status === 'archived') break;
          setLiveState('reconnecting…');
          await new Promise((r) => setTimeout(r, retryMs));
        }
      } finally {
        if (stillHere()) setLiveState(latest.current?.session.status === 'archived' ? 'ended' : 'closed');
      }
    })();
    // leaving the page ends the stream
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded]);

  if (!data) return <ErrorBox error={loadError} />;
  const { session, agent } = data;
  const interrupt = (
    <BusyButton
      className="danger"
      hidden={!(session.status === 'running' || session.status === 'requires_action')}
      onError={setError}
      action={async () => {
        const r = await ctx.api.post<{ interrupted: boolean; discarded_message_ids: string[] }, '/v1/agents/sessions/{sid}/interrupt'>('/v1/agents/sessions/{sid}/interrupt', {}, { path: { sid } });
        setNote(r.interrupted ? `Interrupted${r.discarded_message_ids.length ? `; ${r.discarded_message_ids.length} queued message(s) discarded` : ''}.` : 'Nothing was running.');
        await refresh();
      }}
    >
      Interrupt
    </BusyButton>
  );
  return (
    <>
      <p className="crumbs">
        <a href={`${BASE}/agents`}>Agents</a>
        {' / '}
        <a href={href('agents', agent.id)}>{agent.name}</a>
        {' / session'}
      </p>
      <h1>
        {session.title ?? 'Session'}
        <span className={`pill status-${session.status}`} id="session-status">
          {session.status}
        </span>
      </h1>
      <section className="card" aria-labelledby="events-h">
        <h2 id="events-h">
          {'Events '}
          <span className="muted" id="stream-state" role="status">
            {liveState}
          </span>
        </h2>
        <ol className="events" aria-live="polite" aria-label="Session events">
          {events.map((e) => (
            <EventLine key={e.seq} e={e} />
          ))}
        </ol>
        <p className="msg msg-assistant typing" hidden={!typing} aria-live="off">
          {typing}
        </p>
      </section>
      <section className="card">
        {canConverse(ctx.role) ? (
          session.status === 'archived' ? null : (
            <SendMessage
              ctx={ctx}
              sid={sid}
              onError={setError}
              interrupt={interrupt}
              sent={async (n) => {
                setNote(n);
                await refresh();
              }}
            />
          )
        ) : (
          <>
            <p className="muted">Viewers follow sessions; members, admins and owners send messages.</p>
            {interrupt}
          </>
        )}
        <p role="status" className="muted">
          {note}
        </p>
        <ErrorBox error={error} />
      </section>
    </>
  );
}

export const sessionPage: Area = {
  id: 'agent-session',
  routes: ['/agents/sessions/:sid'],
  title: () => 'Agent session',
  Page: SessionPage,
};
