import type { Area, Ctx } from '../context.js';
import { busy, errorBox, h, input, replace, select, when } from '../dom.js';
import { BASE, href } from '../router.js';
import type { Page } from '../types.js';

/**
 * The ontology review queue: proposals by status, each approvable as is or with its name
 * edited, or rejected with a reason; several at once with the batch actions.
 */
export interface Proposal {
  id: string;
  schema_id: string;
  proposal_type: string;
  object_type: string;
  source_uids: string[];
  changes_json: { adds: { canonical_name?: string; fields?: Record<string, unknown>; aliases?: string[] }[] };
  rationale: string | null;
  confidence: number | null;
  risk_level: string;
  review_status: string;
  applied_error: string | null;
  proposed_node_uid: string | null;
  created_at: string;
}
interface BatchResult {
  results: { id: string; review_status: string; error?: string }[];
  succeeded: number;
  failed: number;
}

const OPEN = new Set(['pending', 'approval_required']);

export function proposalCard(ctx: Ctx, p: Proposal, picked: Set<string>, refresh: () => Promise<void>, notify: (message: string) => void): HTMLElement {
  const add = p.changes_json.adds[0] ?? {};
  const errors = errorBox();
  const name = input({ name: 'canonical_name', value: add.canonical_name ?? '', 'aria-label': `Name of proposal ${add.canonical_name ?? p.id}` });
  const proposedFields = JSON.stringify(add.fields ?? {});
  const fieldsInput = input({ name: 'fields', value: proposedFields, class: 'mono', placeholder: 'fields as JSON', 'aria-label': `Fields of ${add.canonical_name ?? p.id} (JSON)` });
  const reason = input({ name: 'reason', placeholder: 'reason (optional)', 'aria-label': `Reason to reject ${add.canonical_name ?? p.id}` });
  const approve = h('button', { type: 'button', class: 'small' }, 'Approve');
  const reject = h('button', { type: 'button', class: 'small danger' }, 'Reject');
  approve.addEventListener('click', () => void busy(approve, errors, async () => {
    const edits: Record<string, unknown> = {};
    if (name.value.trim() && name.value.trim() !== add.canonical_name) edits.canonical_name = name.value.trim();
    if (fieldsInput.value.trim() !== proposedFields) {
      try {
        edits.fields = JSON.parse(fieldsInput.value);
      } catch {
        throw new Error('The fields are not valid JSON: write them as {"name": value, …}.');
      }
    }
    const r = await ctx.api.post<Proposal>('/v1/ontology/proposals/{id}/approve', (Object.keys(edits).length ? { edits } : {}), { path: { id: p.id } });
    await refresh();
    if (r.review_status === 'apply_failed') notify(`“${add.canonical_name}” was approved but could not be written: ${r.applied_error}. Find it under “Apply failed”.`);
  }));
  reject.addEventListener('click', () => void busy(reject, errors, async () => {
    await ctx.api.post('/v1/ontology/proposals/{id}/reject', (reason.value.trim() ? { reason: reason.value.trim() } : {}), { path: { id: p.id } });
    await refresh();
  }));
  const open = OPEN.has(p.review_status);
  const check = h('input', { type: 'checkbox', 'aria-label': `Select ${add.canonical_name ?? p.id}`, checked: picked.has(p.id) });
  check.addEventListener('change', () => (check.checked ? picked.add(p.id) : picked.delete(p.id)));
  return h(
    'li',
    { class: 'proposal card', 'data-id': p.id },
    h('div', { class: 'row' }, open ? check : null, h('strong', { class: 'proposal-name' }, add.canonical_name ?? '(unnamed)'), h('span', { class: 'pill' }, p.object_type), h('span', { class: `status status-${p.review_status}` }, p.review_status), p.risk_level === 'high' ? h('span', { class: 'pill danger' }, 'high risk') : null),
    h('p', { class: 'muted' }, `${p.proposal_type} · confidence ${p.confidence ?? '—'} · ${when(p.created_at)}`),
    p.rationale ? h('p', {}, p.rationale) : null,
    add.fields && Object.keys(add.fields).length ? h('p', {}, 'Fields: ', Object.entries(add.fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')) : null,
    p.source_uids.length ? h('p', {}, 'Sources: ', p.source_uids.map((u, i) => [i ? ', ' : '', h('a', { href: href('nodes', u) }, u)])) : null,
    p.proposed_node_uid ? h('p', {}, 'Object: ', h('a', { href: href('nodes', p.proposed_node_uid) }, p.proposed_node_uid)) : null,
    p.applied_error ? h('p', { class: 'error' }, p.applied_error) : null,
    open ? h('div', { class: 'row' }, name, fieldsInput, approve, reason, reject) : null,
    errors,
  );
}

export const proposals: Area = {
  id: 'proposals',
  routes: ['/review/proposals'],
  nav: { label: 'Ontology proposals', path: '/review/proposals', group: 'Review' },
  title: () => 'Ontology proposals',
  async render(ctx, _p, main, q) {
    const status = q.get('status') ?? 'pending';
    const filter = select('status', [['pending', 'Pending'], ['approval_required', 'Approval required'], ['applied', 'Applied'], ['apply_failed', 'Apply failed'], ['rejected', 'Rejected']], status);
    filter.id = 'proposal-status';
    filter.addEventListener('change', () => ctx.navigate(`${BASE}/review/proposals?status=${filter.value}`));
    const list = h('ul', { class: 'proposals', 'aria-live': 'polite' });
    const errors = errorBox();
    const picked = new Set<string>();
    const refresh = async () => {
      const page = await ctx.api.get<Page<Proposal>>('/v1/ontology/proposals', { query: { status, limit: 100 } });
      picked.clear();
      replace(list, page.items.length ? page.items.map((p) => proposalCard(ctx, p, picked, refresh, (m) => errors.show(m))) : h('li', { class: 'empty' }, 'Nothing to review here.'));
    };
    const batch = (kind: 'approve' | 'reject', button: HTMLButtonElement) => void busy(button, errors, async () => {
      if (picked.size === 0) throw new Error('Select proposals first.');
      const r = await ctx.api.post<BatchResult>(kind === 'approve' ? '/v1/ontology/proposals/batch-approve' : '/v1/ontology/proposals/batch-reject', { ids: [...picked] });
      await refresh();
      if (r.failed) errors.show(`${r.succeeded} done, ${r.failed} failed: ${r.results.filter((x) => x.error).map((x) => x.error).join('; ')}`);
    });
    const approveAll = h('button', { type: 'button' }, 'Approve selected');
    const rejectAll = h('button', { type: 'button', class: 'danger' }, 'Reject selected');
    approveAll.addEventListener('click', () => batch('approve', approveAll));
    rejectAll.addEventListener('click', () => batch('reject', rejectAll));
    replace(
      main,
      h('h1', {}, 'Ontology proposals'),
      h('div', { class: 'row toolbar' }, h('label', { for: 'proposal-status' }, 'Status'), filter, OPEN.has(status) ? [approveAll, rejectAll] : null),
      errors,
      list,
    );
    await refresh();
  },
};
