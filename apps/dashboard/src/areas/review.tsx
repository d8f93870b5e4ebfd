import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../api.js';
import type { Area, Ctx, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import { BASE, href } from '../router.js';
import type { NodeRecord, Page, Role } from '../types.js';
import { BusyButton, ErrorBox, Field, Json, Select, useAction, useMounted } from '../ui.js';
import { ExceptionList, type ExceptionListHandle } from './health.js';
import { ProposalCard, type Proposal } from './proposals.js';

/**
 * Everything waiting for a person, in one place: ontology proposals, tool calls waiting for
 * approval (MCP and built-in: the managed agents' pending decisions), agents' questions
 * (`ask_user`), approval requests in the graph, and open Knowledge Health exceptions. Each
 * section loads on its own, so one the plan or role does not allow says so and the rest work.
 */
export interface ToolApproval {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';
  kind: 'mcp_tool' | 'builtin_tool';
  connection_name: string | null;
  tool_name: string;
  arguments: unknown;
  reasons: { source: string; policy_uid?: string }[];
  agent_id: string | null;
  agent_name: string | null;
  session_id: string | null;
  requested_at: string;
  expires_at: string;
}
interface SessionSummary {
  id: string;
  agent_id: string;
  title: string | null;
  status: string;
}
interface PendingInput {
  pending: boolean;
  request: { request_id: string; run_id: string; prompt: string; options: string[] | null; requested_at: string; expires_at: string } | null;
}

const canAct = (role: Role | null) => role === 'owner' || role === 'admin' || role === 'member';

/** How a section reports: its count in the heading, a refusal (plan, role) in its body, else an error. */
interface SectionState {
  count: string | null;
  refused: string | null;
  error: unknown;
}
const fresh: SectionState = { count: null, refused: null, error: null };

function Section({ id, title, state, children }: { id: string; title: string; state: SectionState; children: ReactNode }) {
  return (
    <section className="card" id={id} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{state.count === null ? title : `${title} (${state.count})`}</h2>
      <div aria-live="polite">{state.refused !== null ? <p className="muted">{state.refused}</p> : children}</div>
      <ErrorBox error={state.error} />
    </section>
  );
}

/** Loads a section, keeping what it reports; a plan or role refusal is said in the section. */
function useSection<T>(load: () => Promise<T>, count: (t: T) => string): { state: SectionState; data: T | undefined; reload(): Promise<void>; fail(err: unknown): void } {
  const [state, setState] = useState<SectionState>(fresh);
  const [data, setData] = useState<T | undefined>(undefined);
  const mounted = useMounted();
  const latest = useRef(load);
  latest.current = load;
  const fail = useCallback((err: unknown) => {
    if (err instanceof ApiError && (err.code === 'plan_required' || err.status === 403)) setState((s) => ({ ...s, refused: err.message }));
    else setState((s) => ({ ...s, error: err }));
  }, []);
  const reload = useCallback(async () => {
    try {
      const d = await latest.current();
      if (!mounted()) return;
      setData(d);
      setState({ count: count(d), refused: null, error: null });
    } catch (err) {
      if (mounted()) fail(err);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mounted, fail]);
  return { state, data, reload, fail };
}

/** One tool call waiting for approval, with allow and deny (member or higher). */
export function ApprovalCard({ ctx, a, after }: { ctx: Ctx; a: ToolApproval; after(): Promise<void> }) {
  const name = a.connection_name ? `${a.connection_name} · ${a.tool_name}` : a.tool_name;
  const [reason, setReason] = useState('');
  const [scope, setScope] = useState<'once' | 'session'>('once');
  const [error, setError] = useState<unknown>(null);
  const resolve = (decision: 'allow' | 'deny') => async () => {
    await ctx.api.post(
      '/v1/mcp/approvals/{id}/resolve',
      { decision, ...(reason.trim() ? { reason: reason.trim() } : {}), ...(decision === 'allow' ? { scope } : {}) },
      { path: { id: a.id } },
    );
    await after();
  };
  return (
    <li className="card approval" data-id={a.id}>
      <div className="row">
        <strong>{name}</strong>
        <span className="pill">{a.kind === 'mcp_tool' ? 'MCP' : 'built-in'}</span>
        <span className={`status status-${a.status}`}>{a.status}</span>
      </div>
      <p className="muted">
        {a.agent_id ? (
          <>
            {'asked by '}
            <a href={href('agents', a.agent_id)}>{a.agent_name ?? a.agent_id}</a>
          </>
        ) : null}
        {a.session_id ? (
          <>
            {' in '}
            <a href={href('agents', 'sessions', a.session_id)}>its session</a>
          </>
        ) : null}
        {` · ${when(a.requested_at)} · expires ${when(a.expires_at)}`}
      </p>
      <p>{`Why: ${a.reasons.map((r) => (r.policy_uid ? `${r.source} (${r.policy_uid})` : r.source)).join(', ') || '—'}`}</p>
      <details>
        <summary>Arguments</summary>
        <Json value={a.arguments} />
      </details>
      {canAct(ctx.role) && a.status === 'pending' ? (
        <div className="row">
          <Select name="scope" aria-label={`Allow ${name} for`} value={scope} onChange={(e) => setScope(e.currentTarget.value as 'once' | 'session')} options={[['once', 'this call'], ['session', 'this tool for the rest of the session']]} />
          <BusyButton className="small" onError={setError} action={resolve('allow')}>
            Allow
          </BusyButton>
          <input type="text" name="reason" maxLength={1000} placeholder="reason (optional)" aria-label={`Reason for ${name}`} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          <BusyButton className="small danger" onError={setError} action={resolve('deny')}>
            Deny
          </BusyButton>
        </div>
      ) : null}
      <ErrorBox error={error} />
    </li>
  );
}

/** An agent's question (`ask_user`) with its options and a free answer. */
function QuestionCard({ ctx, s, req, after }: { ctx: Ctx; s: SessionSummary; req: NonNullable<PendingInput['request']>; after(): Promise<void> }) {
  const [answer, setAnswer] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  const action = useAction();
  return (
    <li className="card question" data-session={s.id}>
      <p>
        <strong>{req.prompt}</strong>
      </p>
      <p className="muted">
        {'in '}
        <a href={href('agents', 'sessions', s.id)}>{s.title ?? s.id}</a>
        {` · asked ${when(req.requested_at)} · expires ${when(req.expires_at)}`}
      </p>
      {canAct(ctx.role) ? (
        <form
          className="answer"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              await ctx.api.post('/v1/agents/sessions/{sid}/respond', { response: answer, request_id: req.request_id }, { path: { sid: s.id } });
              await after();
            });
          }}
        >
          {req.options?.length ? (
            <div className="row" aria-label="Options">
              {req.options.map((o) => (
                <button
                  key={o}
                  type="button"
                  className="small secondary"
                  onClick={() => {
                    setAnswer(o);
                    box.current?.focus();
                  }}
                >
                  {o}
                </button>
              ))}
            </div>
          ) : null}
          <Field label={`Your answer to “${req.prompt.slice(0, 80)}”`}>
            <textarea name="response" rows={2} required maxLength={100000} ref={box} value={answer} onChange={(e) => setAnswer(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
            Answer
          </button>
          <ErrorBox error={action.error} />
        </form>
      ) : null}
    </li>
  );
}

function ApprovalRequest({ ctx, n, after, onError }: { ctx: Ctx; n: NodeRecord; after(): Promise<void>; onError(err: unknown): void }) {
  const [reason, setReason] = useState('');
  const resolve = (approved: boolean) => async () => {
    await ctx.api.post('/agent/governance', { action: 'resolve_approval', approval_uid: n.uid, approved, ...(reason.trim() ? { reason: reason.trim() } : {}) });
    await after();
  };
  const target = typeof n.props.target_uid === 'string' ? n.props.target_uid : null;
  return (
    <li className="card request" data-id={n.uid}>
      <div className="row">
        <a href={href('nodes', n.uid)}>
          <strong>{n.label}</strong>
        </a>
        {target ? (
          <>
            {'for '}
            <a href={href('nodes', target)}>{String(n.props.target_type ?? target)}</a>
          </>
        ) : null}
      </div>
      <p className="muted">{`requested ${when(typeof n.props.requested_at === 'string' ? n.props.requested_at : n.created_at)}${n.agent_id ? ` by ${n.agent_id}` : ''}`}</p>
      {typeof n.props.reason === 'string' ? <p>{n.props.reason}</p> : null}
      {isAdmin(ctx.role) ? (
        <div className="row">
          <BusyButton className="small" onError={onError} action={resolve(true)}>
            Approve
          </BusyButton>
          <input type="text" name="reason" placeholder="reason (optional)" aria-label={`Reason for ${n.label}`} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          <BusyButton className="small danger" onError={onError} action={resolve(false)}>
            Deny
          </BusyButton>
        </div>
      ) : null}
    </li>
  );
}

const plus = (n: number, more = false) => `${n}${more ? '+' : ''}`;

function Review({ ctx }: PageProps) {
  const toolApprovalIds = useRef(new Set<string>());
  const proposals = useSection(
    () => ctx.api.get<Page<Proposal>>('/v1/ontology/proposals', { query: { status: 'pending', limit: 20 } }),
    (p) => plus(p.items.length, p.has_more),
  );
  const calls = useSection(
    async () => {
      const page = await ctx.api.get<Page<ToolApproval>>('/v1/mcp/approvals', { query: { status: 'pending', kind: 'all', limit: 100 } });
      toolApprovalIds.current = new Set(page.items.map((a) => a.id));
      return page;
    },
    (p) => plus(p.items.length, p.has_more),
  );
  const questions = useSection(
    async () => {
      const sessions = await ctx.api.get<Page<SessionSummary>>('/v1/agents/sessions', { query: { status: 'requires_action', limit: 100 } });
      return (await Promise.all(sessions.items.map(async (s) => ({ s, p: await ctx.api.get<PendingInput>('/v1/agents/sessions/{sid}/pending-input', { path: { sid: s.id } }) })))).filter(
        (x) => x.p.pending && x.p.request,
      );
    },
    (asked) => plus(asked.length),
  );
  const requests = useSection(
    // tool-call approvals are Approval nodes too: they are listed above, with their own controls
    async () => (await ctx.api.get<NodeRecord[]>('/approvals/pending', { query: { limit: 100 } })).filter((n) => !toolApprovalIds.current.has(n.uid)),
    (pending) => plus(pending.length),
  );
  const [exceptionState, setExceptionState] = useState<SectionState>(fresh);
  const [proposalNotice, setProposalNotice] = useState<unknown>(null);
  const [requestError, setRequestError] = useState<unknown>(null);
  const exceptionList = useRef<ExceptionListHandle>(null);
  useEffect(() => {
    void (async () => {
      await calls.reload();
      await Promise.all([proposals.reload(), questions.reload(), requests.reload()]);
    })();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const afterCall = async () => {
    await calls.reload();
    await requests.reload();
  };
  return (
    <>
      <h1>Review queue</h1>
      <Section id="review-proposals" title="Ontology proposals" state={{ ...proposals.state, error: proposals.state.error ?? proposalNotice }}>
        {proposals.data ? (
          <>
            {proposals.data.items.length ? (
              <ul className="proposals">
                {proposals.data.items.map((p) => (
                  <ProposalCard key={p.id} ctx={ctx} p={p} refresh={proposals.reload} notify={(m) => setProposalNotice(new Error(m))} />
                ))}
              </ul>
            ) : (
              <p className="empty">No proposals waiting.</p>
            )}
            <p>
              <a href={`${BASE}/review/proposals`}>All proposals, batch review</a>
            </p>
          </>
        ) : null}
      </Section>
      <Section id="review-tool-calls" title="Tool calls waiting for approval" state={calls.state}>
        {calls.data ? (
          calls.data.items.length ? (
            <ul className="approvals">
              {calls.data.items.map((a) => (
                <ApprovalCard key={a.id} ctx={ctx} a={a} after={afterCall} />
              ))}
            </ul>
          ) : (
            <p className="empty">No tool call is waiting.</p>
          )
        ) : null}
      </Section>
      <Section id="review-questions" title="Questions from agents" state={questions.state}>
        {questions.data ? (
          questions.data.length ? (
            <ul className="questions">
              {questions.data.map(({ s, p }) => (
                <QuestionCard key={`${s.id}-${p.request!.request_id}`} ctx={ctx} s={s} req={p.request!} after={questions.reload} />
              ))}
            </ul>
          ) : (
            <p className="empty">No agent is waiting for an answer.</p>
          )
        ) : null}
      </Section>
      <Section id="review-requests" title="Approval requests" state={{ ...requests.state, error: requests.state.error ?? requestError }}>
        {requests.data ? (
          <>
            {requests.data.length ? (
              <ul className="requests">
                {requests.data.map((n) => (
                  <ApprovalRequest key={n.uid} ctx={ctx} n={n} after={requests.reload} onError={setRequestError} />
                ))}
              </ul>
            ) : (
              <p className="empty">No approval requests.</p>
            )}
            {isAdmin(ctx.role) ? null : <p className="muted">Owners and admins decide approval requests.</p>}
          </>
        ) : null}
      </Section>
      <Section id="review-exceptions" title="Knowledge Health exceptions" state={exceptionState}>
        <ExceptionList
          ref={exceptionList}
          ctx={ctx}
          query={{ status: 'open' }}
          onChange={() => void exceptionList.current?.reload()}
          onLoad={(p) => setExceptionState({ count: plus(p.items.length, p.has_more), refused: null, error: null })}
          onLoadError={(err) =>
            setExceptionState((s) => (err instanceof ApiError && (err.code === 'plan_required' || err.status === 403) ? { ...s, refused: err.message } : { ...s, error: err }))
          }
        />
        <p>
          <a href={`${BASE}/health`}>Knowledge Health: the summary and every exception</a>
        </p>
      </Section>
    </>
  );
}

export const review: Area = {
  id: 'review',
  routes: ['/review'],
  nav: { label: 'Review queue', path: '/review', group: 'Review' },
  title: () => 'Review queue',
  Page: Review,
};
