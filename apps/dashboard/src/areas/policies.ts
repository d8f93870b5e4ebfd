import { ApiError } from '../api.js';
import type { Area, Ctx } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import { BASE } from '../router.js';
import type { Page } from '../types.js';

/**
 * Structured policies (draft → shadow → published, or rejected) with their shadow decisions,
 * and the audit trail with its filters. Owners and admins write policies; every member reads
 * them, and reads the audit records the server lets them see (their own, unless owner or admin).
 */
type Status = 'draft' | 'shadow' | 'published' | 'rejected';
type Effect = 'allow' | 'deny' | 'require_approval';
interface Policy {
  uid: string;
  name: string;
  description: string | null;
  status: Status;
  effect: Effect;
  priority: number;
  match: Record<string, unknown>;
  version: number;
  status_reason: string | null;
  updated_at: string;
}
interface AuditRecord {
  id: string;
  position: number;
  kind: string;
  event_type: string;
  occurred_at: string;
  principal: { kind: string; id: string };
  method: string | null;
  route: string | null;
  tool_uid: string | null;
  target_uids: string[];
  subject_uid: string | null;
  status: string | null;
  decision: { effect: Effect; enforced: boolean; policy_uids: string[]; shadow: { policy_uid: string; effect: Effect }[]; reason: string | null } | null;
}

/** Where a status may go next (REFERENCE §13.6). */
const NEXT: Record<Status, Status[]> = { draft: ['shadow', 'published', 'rejected'], shadow: ['published', 'rejected'], published: ['shadow', 'rejected'], rejected: [] };
const VERB: Record<Status, string> = { draft: 'Draft', shadow: 'Shadow', published: 'Publish', rejected: 'Reject' };
const KINDS = ['policy_decision', 'approval_requested', 'approval_resolved', 'approval_consumed', 'execution_started', 'execution_finished', 'governance_change'];

/** The server's message, and the paths an `invalid_policy` answer names. */
function showError(errors: ReturnType<typeof errorBox>, err: unknown): void {
  errors.show(err);
  const details = err instanceof ApiError ? (err.body as { errors?: { path: string; message: string }[] } | null)?.errors : undefined;
  if (details?.length) errors.textContent += ' — ' + details.map((d) => `${d.path}: ${d.message}`).join('; ');
}

const auditHref = (q: Record<string, string>) => `${BASE}/governance/audit?${new URLSearchParams(q)}`;

export const policies: Area = {
  id: 'policies',
  routes: ['/governance/policies'],
  nav: { label: 'Policies', path: '/governance/policies', group: 'Governance' },
  title: () => 'Policies',
  async render(ctx, _p, main, q) {
    const admin = isAdmin(ctx.role);
    const statusFilter = select('status', [['', 'Any status'], 'draft', 'shadow', 'published', 'rejected'], q.get('status') ?? '');
    statusFilter.addEventListener('change', () => ctx.navigate(`${BASE}/governance/policies${statusFilter.value ? `?status=${statusFilter.value}` : ''}`));
    const page = await ctx.api.get<Page<Policy>>('/v1/governance/policies', { query: { status: q.get('status') ?? undefined, limit: 1000 } });
    const errors = errorBox();
    const again = () => policies.render!(ctx, {}, main, q);
    const move = (p: Policy, to: Status) => {
      const b = h('button', { type: 'button', class: `small${to === 'rejected' ? ' danger' : ''}`, 'aria-label': `${VERB[to]} ${p.name}` }, VERB[to]);
      b.addEventListener('click', () => void busy(b, null, async () => {
        try {
          await ctx.api.patch('/v1/governance/policies/{policy_uid}', { status: to, expected_version: p.version }, { path: { policy_uid: p.uid } });
          await again();
        } catch (err) {
          showError(errors, err);
        }
      }));
      return b;
    };

    let form: HTMLElement | null = null;
    if (admin) {
      const name = input({ name: 'name', required: true, maxlength: 200 });
      const effect = select('effect', ['deny', 'require_approval', 'allow'], 'deny');
      const priority = input({ type: 'number', name: 'priority', min: -1000, max: 1000, value: 0 });
      const match = h('textarea', { name: 'match', rows: 4, required: true }, '{\n  "node_types": ["Claim"]\n}') as HTMLTextAreaElement;
      const status = select('status', ['draft', 'shadow', 'published'], 'shadow');
      const createErrors = errorBox();
      const go = h('button', { type: 'submit' }, 'Create policy');
      form = h('form', { class: 'card', 'aria-labelledby': 'new-policy-h' }, h('h2', { id: 'new-policy-h' }, 'New policy'),
        field('Name', name), field('Effect', effect), field('Priority', priority, 'The highest priority wins; at equal priority deny beats require_approval beats allow.'),
        field('Match (JSON)', match, 'principals, routes, tools, node_types, layers, min_classification, spaces, projects: every condition present must hold.'),
        field('Start as', status, 'shadow: evaluated and logged, never enforced.'), createErrors, go);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(go, null, async () => {
          createErrors.clear();
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(match.value) as Record<string, unknown>;
          } catch {
            createErrors.show(new Error('The match is not valid JSON.'));
            return;
          }
          try {
            await ctx.api.post('/v1/governance/policies', { name: name.value.trim(), effect: effect.value as Effect, priority: Number(priority.value), match: parsed, status: status.value as 'draft' | 'shadow' | 'published' });
            await again();
          } catch (err) {
            showError(createErrors, err);
          }
        });
      });
    }

    const sync = admin ? h('button', { type: 'button' }, 'Sync to the graph') : null;
    const synced = h('p', { role: 'status', class: 'muted' });
    sync?.addEventListener('click', () => void busy(sync, errors, async () => {
      const r = await ctx.api.post<{ synced_at: string; policies: number; nodes_created: number; nodes_updated: number; nodes_tombstoned: number }>('/v1/governance/sync');
      synced.textContent = `Synced ${when(r.synced_at)}: ${r.policies} policies, ${r.nodes_created} created, ${r.nodes_updated} updated, ${r.nodes_tombstoned} tombstoned.`;
    }));

    replace(
      main,
      h('h1', {}, 'Policies'),
      h('section', { class: 'card', 'aria-labelledby': 'policies-h' }, h('h2', { id: 'policies-h' }, `Policies (${page.items.length})`),
        field('Status', statusFilter),
        table<Policy>('Policies', [
          ['Policy', (p) => [h('strong', {}, p.name), p.description ? h('div', { class: 'muted' }, p.description) : null]],
          ['Status', (p) => h('span', { class: `status status-${p.status}`, 'data-policy': p.uid }, p.status)],
          ['Effect', (p) => p.effect],
          ['Priority', (p) => String(p.priority)],
          ['Match', (p) => h('code', { class: 'match' }, JSON.stringify(p.match))],
          ['Version', (p) => `v${p.version} · ${when(p.updated_at)}`],
          ['', (p) => h('div', { class: 'row-actions' },
            h('a', { href: auditHref({ policy_uid: p.uid, kind: 'policy_decision' }), 'aria-label': `Decisions of ${p.name}` }, 'Decisions'),
            admin ? NEXT[p.status].map((to) => move(p, to)) : null)],
        ], page.items, 'No policies.'),
        errors, sync, synced),
      form ?? h('p', { class: 'muted' }, 'Owners and admins create and change policies.'),
    );
  },
};

function decisionText(r: AuditRecord): string {
  const d = r.decision;
  if (!d) return r.status ?? '';
  const shadow = d.shadow.map((s) => `shadow ${s.policy_uid.slice(0, 8)}… would ${s.effect}`).join('; ');
  return `${d.effect}${d.enforced ? ' (enforced)' : ''}${shadow ? ` · ${shadow}` : ''}${d.reason ? ` · ${d.reason}` : ''}`;
}

async function loadAudit(ctx: Ctx, query: Record<string, string>, cursor: string | null): Promise<{ items: AuditRecord[]; has_more: boolean; next_cursor: string | null }> {
  return ctx.api.get('/v1/governance/audit', { query: { ...query, cursor: cursor ?? undefined } });
}

export const audit: Area = {
  id: 'audit',
  routes: ['/governance/audit'],
  nav: { label: 'Audit trail', path: '/governance/audit', group: 'Governance' },
  title: () => 'Audit trail',
  async render(ctx, _p, main, q) {
    const kind = select('kind', [['', 'Every kind'], ...KINDS.map((k) => [k, k.replace(/_/g, ' ')] as [string, string])], q.get('kind') ?? '');
    const principal = input({ name: 'principal', value: q.get('principal') ?? '', placeholder: 'user:<id>, api_key:<id>, agent:<id>' });
    const policy = input({ name: 'policy_uid', value: q.get('policy_uid') ?? '' });
    const target = input({ name: 'target_uid', value: q.get('target_uid') ?? '' });
    const decision = select('decision', [['', 'Any decision'], 'allow', 'deny', 'require_approval'], q.get('decision') ?? '');
    const enforced = select('enforced', [['', 'Either'], ['true', 'enforced'], ['false', 'not enforced']], q.get('enforced') ?? '');
    const since = input({ type: 'datetime-local', name: 'since', value: q.get('since')?.replace(/Z$/, '').slice(0, 16) ?? '' });
    const until = input({ type: 'datetime-local', name: 'until', value: q.get('until')?.replace(/Z$/, '').slice(0, 16) ?? '' });
    const order = select('order', [['desc', 'newest first'], ['asc', 'oldest first']], q.get('order') ?? 'desc');
    const go = h('button', { type: 'submit' }, 'Filter');
    const form = h('form', { class: 'card filters', 'aria-label': 'Audit filters' },
      field('Kind', kind), field('Principal', principal), field('Policy uid', policy), field('Target uid', target), field('Decision', decision), field('Enforced', enforced),
      field('Since (UTC)', since), field('Until (UTC)', until), field('Order', order), go);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const params: Record<string, string> = { kind: kind.value, principal: principal.value.trim(), policy_uid: policy.value.trim(), target_uid: target.value.trim(), decision: decision.value, enforced: enforced.value, since: since.value ? `${since.value}:00Z` : '', until: until.value ? `${until.value}:00Z` : '', order: order.value === 'desc' ? '' : order.value };
      ctx.navigate(auditHref(Object.fromEntries(Object.entries(params).filter(([, v]) => v))));
    });
    const query: Record<string, string> = {};
    for (const k of ['kind', 'principal', 'policy_uid', 'target_uid', 'decision', 'enforced', 'since', 'until', 'order']) if (q.get(k)) query[k] = q.get(k)!;
    const errors = errorBox();
    const body = h('tbody', {});
    const more = h('button', { type: 'button', hidden: true }, 'Load more');
    const count = h('span', { class: 'muted', id: 'audit-count' });
    let cursor: string | null = null;
    let shown = 0;
    const addPage = async () => {
      const r = await loadAudit(ctx, query, cursor);
      for (const rec of r.items)
        body.appendChild(h('tr', { class: `audit-${rec.kind}`, 'data-id': rec.id },
          h('td', {}, when(rec.occurred_at)),
          h('td', {}, rec.kind.replace(/_/g, ' ')),
          h('td', {}, rec.principal.id.includes(':') || rec.principal.kind === 'system' ? rec.principal.id : `${rec.principal.kind}:${rec.principal.id}`),
          h('td', {}, rec.route ? `${rec.method ?? ''} ${rec.route}` : rec.tool_uid ? `tool ${rec.tool_uid}` : rec.event_type),
          h('td', { class: 'mono-small' }, [...rec.target_uids, ...(rec.subject_uid && !rec.target_uids.includes(rec.subject_uid) ? [rec.subject_uid] : [])].join(' ')),
          h('td', { class: 'decision' }, decisionText(rec))));
      shown += r.items.length;
      cursor = r.next_cursor;
      more.hidden = !r.has_more;
      count.textContent = `${shown}${r.has_more ? '+' : ''} record${shown === 1 ? '' : 's'}`;
    };
    more.addEventListener('click', () => void busy(more, errors, addPage));
    replace(
      main,
      h('h1', {}, 'Audit trail'),
      form,
      h('section', { class: 'card', 'aria-labelledby': 'audit-h' }, h('h2', { id: 'audit-h' }, 'Records ', count),
        isAdmin(ctx.role) ? null : h('p', { class: 'muted' }, 'You see the records of your own requests; owners and admins see every record.'),
        h('div', { class: 'table-wrap' }, h('table', { class: 'audit' },
          h('caption', { class: 'visually-hidden' }, 'Audit records'),
          h('thead', {}, h('tr', {}, ['When', 'Kind', 'Principal', 'Request', 'Targets', 'Decision'].map((c) => h('th', { scope: 'col' }, c)))),
          body)),
        more, errors),
    );
    await busy(null, errors, addPage);
  },
};
