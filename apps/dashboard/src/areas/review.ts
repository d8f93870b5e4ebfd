import { ApiError } from '../api.js';
import type { Area, Ctx } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, errorBox, field, h, input, json, replace, select, when } from '../dom.js';
import { BASE, href } from '../router.js';
import type { NodeRecord, Page, Role } from '../types.js';
import { exceptionList } from './health.js';
import { proposalCard, type Proposal } from './proposals.js';

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

/** A section that fills itself; a refusal (plan, role) is shown in it, not over the page. */
function section(id: string, title: string): { el: HTMLElement; heading: HTMLElement; body: HTMLElement; errors: ReturnType<typeof errorBox>; run(load: () => Promise<void>): Promise<void> } {
  const heading = h('h2', { id: `${id}-h` }, title);
  const body = h('div', { 'aria-live': 'polite' });
  const errors = errorBox();
  const el = h('section', { class: 'card', id, 'aria-labelledby': `${id}-h` }, heading, body, errors);
  return {
    el, heading, body, errors,
    async run(load) {
      try {
        await load();
      } catch (err) {
        if (err instanceof ApiError && (err.code === 'plan_required' || err.status === 403)) replace(body, h('p', { class: 'muted' }, err.message));
        else errors.show(err);
      }
    },
  };
}

/** One tool call waiting for approval, with allow and deny (member or higher). */
export function approvalCard(ctx: Ctx, a: ToolApproval, after: () => Promise<void>): HTMLElement {
  const errors = errorBox();
  const name = a.connection_name ? `${a.connection_name} · ${a.tool_name}` : a.tool_name;
  let controls: HTMLElement | null = null;
  if (canAct(ctx.role) && a.status === 'pending') {
    const reason = input({ name: 'reason', maxlength: 1000, placeholder: 'reason (optional)', 'aria-label': `Reason for ${name}` });
    const scope = select('scope', [['once', 'this call'], ['session', 'this tool for the rest of the session']], 'once');
    scope.setAttribute('aria-label', `Allow ${name} for`);
    const allow = h('button', { type: 'button', class: 'small' }, 'Allow');
    const deny = h('button', { type: 'button', class: 'small danger' }, 'Deny');
    const resolve = (decision: 'allow' | 'deny', b: HTMLButtonElement) => void busy(b, errors, async () => {
      await ctx.api.post('/v1/mcp/approvals/{id}/resolve', { decision, ...(reason.value.trim() ? { reason: reason.value.trim() } : {}), ...(decision === 'allow' ? { scope: scope.value as 'once' | 'session' } : {}) }, { path: { id: a.id } });
      await after();
    });
    allow.addEventListener('click', () => resolve('allow', allow));
    deny.addEventListener('click', () => resolve('deny', deny));
    controls = h('div', { class: 'row' }, scope, allow, reason, deny);
  }
  return h('li', { class: 'card approval', 'data-id': a.id },
    h('div', { class: 'row' }, h('strong', {}, name), h('span', { class: 'pill' }, a.kind === 'mcp_tool' ? 'MCP' : 'built-in'), h('span', { class: `status status-${a.status}` }, a.status)),
    h('p', { class: 'muted' },
      a.agent_id ? ['asked by ', h('a', { href: href('agents', a.agent_id) }, a.agent_name ?? a.agent_id)] : null,
      a.session_id ? [' in ', h('a', { href: href('agents', 'sessions', a.session_id) }, 'its session')] : null,
      ` · ${when(a.requested_at)} · expires ${when(a.expires_at)}`),
    h('p', {}, 'Why: ', a.reasons.map((r) => (r.policy_uid ? `${r.source} (${r.policy_uid})` : r.source)).join(', ') || '—'),
    h('details', {}, h('summary', {}, 'Arguments'), json(a.arguments)),
    controls,
    errors);
}

/** An agent's question (`ask_user`) with its options and a free answer. */
function questionCard(ctx: Ctx, s: SessionSummary, req: NonNullable<PendingInput['request']>, after: () => Promise<void>): HTMLElement {
  const errors = errorBox();
  const answer = h('textarea', { name: 'response', rows: 2, required: true, maxlength: 100000 }) as HTMLTextAreaElement;
  const send = h('button', { type: 'submit' }, 'Answer');
  const options = (req.options ?? []).map((o) => {
    const b = h('button', { type: 'button', class: 'small secondary' }, o);
    b.addEventListener('click', () => {
      answer.value = o;
      answer.focus();
    });
    return b;
  });
  const form = h('form', { class: 'answer' }, options.length ? h('div', { class: 'row', 'aria-label': 'Options' }, options) : null, field(`Your answer to “${req.prompt.slice(0, 80)}”`, answer), send, errors);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(send, errors, async () => {
      await ctx.api.post('/v1/agents/sessions/{sid}/respond', { response: answer.value, request_id: req.request_id }, { path: { sid: s.id } });
      await after();
    });
  });
  return h('li', { class: 'card question', 'data-session': s.id },
    h('p', {}, h('strong', {}, req.prompt)),
    h('p', { class: 'muted' }, 'in ', h('a', { href: href('agents', 'sessions', s.id) }, s.title ?? s.id), ` · asked ${when(req.requested_at)} · expires ${when(req.expires_at)}`),
    canAct(ctx.role) ? form : null);
}

export const review: Area = {
  id: 'review',
  routes: ['/review'],
  nav: { label: 'Review queue', path: '/review', group: 'Review' },
  title: () => 'Review queue',
  async render(ctx, _p, main) {
    const proposals = section('review-proposals', 'Ontology proposals');
    const calls = section('review-tool-calls', 'Tool calls waiting for approval');
    const questions = section('review-questions', 'Questions from agents');
    const requests = section('review-requests', 'Approval requests');
    const exceptions = section('review-exceptions', 'Knowledge Health exceptions');
    const count = (s: { heading: HTMLElement }, title: string, n: number, more = false) => (s.heading.textContent = `${title} (${n}${more ? '+' : ''})`);
    let toolApprovalIds = new Set<string>();

    const loadProposals = () => proposals.run(async () => {
      const page = await ctx.api.get<Page<Proposal>>('/v1/ontology/proposals', { query: { status: 'pending', limit: 20 } });
      count(proposals, 'Ontology proposals', page.items.length, page.has_more);
      replace(proposals.body,
        page.items.length ? h('ul', { class: 'proposals' }, page.items.map((p) => proposalCard(ctx, p, new Set(), loadProposals, (m) => proposals.errors.show(m)))) : h('p', { class: 'empty' }, 'No proposals waiting.'),
        h('p', {}, h('a', { href: `${BASE}/review/proposals` }, 'All proposals, batch review')));
    });
    const loadCalls = () => calls.run(async () => {
      const page = await ctx.api.get<Page<ToolApproval>>('/v1/mcp/approvals', { query: { status: 'pending', kind: 'all', limit: 100 } });
      toolApprovalIds = new Set(page.items.map((a) => a.id));
      count(calls, 'Tool calls waiting for approval', page.items.length, page.has_more);
      replace(calls.body, page.items.length ? h('ul', { class: 'approvals' }, page.items.map((a) => approvalCard(ctx, a, async () => {
        await loadCalls();
        await loadRequests();
      }))) : h('p', { class: 'empty' }, 'No tool call is waiting.'));
    });
    const loadQuestions = () => questions.run(async () => {
      const sessions = await ctx.api.get<Page<SessionSummary>>('/v1/agents/sessions', { query: { status: 'requires_action', limit: 100 } });
      const asked = (await Promise.all(sessions.items.map(async (s) => ({ s, p: await ctx.api.get<PendingInput>('/v1/agents/sessions/{sid}/pending-input', { path: { sid: s.id } }) }))))
        .filter((x) => x.p.pending && x.p.request);
      count(questions, 'Questions from agents', asked.length);
      replace(questions.body, asked.length ? h('ul', { class: 'questions' }, asked.map(({ s, p }) => questionCard(ctx, s, p.request!, loadQuestions))) : h('p', { class: 'empty' }, 'No agent is waiting for an answer.'));
    });
    const loadRequests = () => requests.run(async () => {
      // tool-call approvals are Approval nodes too: they are listed above, with their own controls
      const pending = (await ctx.api.get<NodeRecord[]>('/approvals/pending', { query: { limit: 100 } })).filter((n) => !toolApprovalIds.has(n.uid));
      count(requests, 'Approval requests', pending.length);
      const errors = requests.errors;
      replace(requests.body, pending.length
        ? h('ul', { class: 'requests' }, pending.map((n) => {
          const reason = input({ name: 'reason', placeholder: 'reason (optional)', 'aria-label': `Reason for ${n.label}` });
          const approve = h('button', { type: 'button', class: 'small' }, 'Approve');
          const deny = h('button', { type: 'button', class: 'small danger' }, 'Deny');
          const resolve = (approved: boolean, b: HTMLButtonElement) => void busy(b, errors, async () => {
            await ctx.api.post('/agent/governance', { action: 'resolve_approval', approval_uid: n.uid, approved, ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) });
            await loadRequests();
          });
          approve.addEventListener('click', () => resolve(true, approve));
          deny.addEventListener('click', () => resolve(false, deny));
          const target = typeof n.props.target_uid === 'string' ? n.props.target_uid : null;
          return h('li', { class: 'card request', 'data-id': n.uid },
            h('div', { class: 'row' }, h('a', { href: href('nodes', n.uid) }, h('strong', {}, n.label)), target ? ['for ', h('a', { href: href('nodes', target) }, String(n.props.target_type ?? target))] : null),
            h('p', { class: 'muted' }, `requested ${when(typeof n.props.requested_at === 'string' ? n.props.requested_at : n.created_at)}${n.agent_id ? ` by ${n.agent_id}` : ''}`),
            typeof n.props.reason === 'string' ? h('p', {}, n.props.reason) : null,
            isAdmin(ctx.role) ? h('div', { class: 'row' }, approve, reason, deny) : null);
        }))
        : h('p', { class: 'empty' }, 'No approval requests.'),
      isAdmin(ctx.role) ? null : h('p', { class: 'muted' }, 'Owners and admins decide approval requests.'));
    });
    const list = exceptionList(ctx, { status: 'open' }, () => void loadExceptions());
    const loadExceptions = () => exceptions.run(async () => {
      const p = await list.load();
      count(exceptions, 'Knowledge Health exceptions', p.items.length, p.has_more);
      replace(exceptions.body, list.el, h('p', {}, h('a', { href: `${BASE}/health` }, 'Knowledge Health: the summary and every exception')));
    });

    replace(main, h('h1', {}, 'Review queue'), proposals.el, calls.el, questions.el, requests.el, exceptions.el);
    await loadCalls();
    await Promise.all([loadProposals(), loadQuestions(), loadRequests(), loadExceptions()]);
  },
};
