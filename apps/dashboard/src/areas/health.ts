import type { Area, Ctx } from '../context.js';
import { busy, errorBox, h, replace, select, table, when } from '../dom.js';
import { BASE, href } from '../router.js';
import type { Role } from '../types.js';

/**
 * Knowledge Health: the organization's summary (state and why, evidence completeness, counts,
 * the window's activity, exceptions by kind) and the exceptions themselves. An exception is
 * acknowledged by a Task that targets its subject (REFERENCE §14.2): the "Acknowledge" button
 * creates that Task through `/agent/plan`, and the exception reads `acknowledged` from then on.
 */
interface Summary {
  generated_at: string;
  window: { days: number; since: string; until: string };
  state: 'healthy' | 'attention' | 'critical';
  reasons: { metric: string; value: number; threshold: number; level: string }[];
  evidence_completeness: { value: number | null; claims: number; evidenced: number; sourced_only: number; unsupported: number };
  counts: Record<string, number>;
  activity: Record<string, number>;
  exceptions: { open: number; acknowledged: number; by_kind: Record<string, { severity: string; open: number; acknowledged: number }> };
}
export interface HealthException {
  id: string;
  kind: string;
  severity: 'high' | 'medium' | 'low';
  status: 'open' | 'acknowledged' | 'resolved';
  subject: { uid: string; type: 'node' | 'edge' | 'schedule'; node_type: string | null; edge_type: string | null; label: string | null };
  detail: Record<string, unknown>;
  project_uids: string[];
  task_uids: string[];
  first_detected_at: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  resolved_at: string | null;
  resolution: string | null;
  reopen_count: number;
}
interface ExceptionPage {
  items: HealthException[];
  has_more: boolean;
  limit: number;
  next_cursor: string | null;
  groups: { kind: string; severity: string; open: number; acknowledged: number; resolved: number }[];
}

const KINDS = ['claim_unsupported', 'contradiction_unresolved', 'approval_overdue', 'duplicate_pending', 'derivation_stale', 'chunk_failed', 'chunk_orphaned', 'document_stuck', 'brief_stale', 'schedule_failing'];
const readable = (kind: string) => kind.replace(/_/g, ' ');
const canWrite = (role: Role | null) => role !== null && role !== 'viewer';

/** The node a Task can target for this exception: the subject, or an edge's source node. */
function target(e: HealthException): string | null {
  if (e.subject.type === 'node') return e.subject.uid;
  if (e.subject.type === 'edge' && typeof e.detail.from_uid === 'string') return e.detail.from_uid;
  return null;
}

function subjectLink(e: HealthException): HTMLElement | string {
  const name = e.subject.label ?? e.subject.uid;
  if (e.subject.type === 'node') return h('a', { href: href('nodes', e.subject.uid) }, name);
  if (e.subject.type === 'edge' && typeof e.detail.from_uid === 'string') return h('span', {}, `${e.subject.edge_type ?? 'edge'} from `, h('a', { href: href('nodes', e.detail.from_uid) }, String(e.detail.from_uid)));
  return h('a', { href: `${BASE}/briefings/schedules/${encodeURIComponent(e.subject.uid)}` }, `schedule ${name}`);
}

/**
 * A list of exceptions with "Acknowledge" for those that can be (open, a node to target, a
 * role that writes). `query` is the filter of `GET /v1/knowledge-health/exceptions`; "More"
 * follows `next_cursor`.
 */
export function exceptionList(ctx: Ctx, query: Record<string, string | undefined>, onChange?: () => void): { el: HTMLElement; load(): Promise<ExceptionPage> } {
  const el = h('div', { class: 'exceptions', 'aria-live': 'polite' });
  const errors = errorBox();
  const more = h('button', { type: 'button', class: 'small', hidden: true }, 'More');
  const rows: HealthException[] = [];
  let cursor: string | null = null;
  const acknowledge = (e: HealthException) => {
    const uid = target(e);
    if (!uid || e.status !== 'open' || !canWrite(ctx.role)) return null;
    const b = h('button', { type: 'button', class: 'small', 'aria-label': `Acknowledge ${readable(e.kind)}: ${e.subject.label ?? e.subject.uid}` }, 'Acknowledge');
    b.addEventListener('click', () => void busy(b, errors, async () => {
      await ctx.api.post('/agent/plan', { action: 'create_task', label: `Look into ${readable(e.kind)}: ${e.subject.label ?? e.subject.uid}`.slice(0, 500), related_uids: [uid] });
      await load();
      onChange?.();
    }));
    return b;
  };
  const draw = () =>
    replace(
      el,
      table<HealthException>('Knowledge Health exceptions', [
        ['Severity', (e) => h('span', { class: `pill severity-${e.severity}` }, e.severity)],
        ['Exception', (e) => [h('strong', {}, readable(e.kind)), h('div', {}, subjectLink(e))]],
        ['Status', (e) => [h('span', { class: `status status-${e.status}`, 'data-exception': e.id }, e.status), e.task_uids.length ? h('div', { class: 'muted' }, 'task ', e.task_uids.map((t, i) => [i ? ', ' : '', h('a', { href: href('nodes', t) }, t)])) : null]],
        ['Since', (e) => when(e.first_detected_at)],
        ['', (e) => acknowledge(e)],
      ], rows, 'No exceptions: nothing needs attention.'),
      more,
      errors,
    );
  const fetchPage = (after: string | null) => ctx.api.get<ExceptionPage>('/v1/knowledge-health/exceptions', { query: { ...query, limit: 50, cursor: after ?? undefined } });
  const load = async () => {
    const p = await fetchPage(null);
    rows.splice(0, rows.length, ...p.items);
    cursor = p.next_cursor;
    more.hidden = !p.has_more;
    draw();
    return p;
  };
  more.addEventListener('click', () => void busy(more, errors, async () => {
    const p = await fetchPage(cursor);
    rows.push(...p.items);
    cursor = p.next_cursor;
    more.hidden = !p.has_more;
    draw();
  }));
  return { el, load };
}

export const health: Area = {
  id: 'health',
  routes: ['/health'],
  nav: { label: 'Knowledge Health', path: '/health', group: 'Review' },
  title: () => 'Knowledge Health',
  async render(ctx, _p, main, q) {
    const days = q.get('days') ?? '30';
    const status = q.get('status') ?? 'open,acknowledged';
    const severity = q.get('severity') ?? '';
    const kind = q.get('kind') ?? '';
    const go = (change: Record<string, string>) => {
      const next = new URLSearchParams({ days, status, severity, kind, ...change });
      for (const [k, v] of [...next]) if (!v) next.delete(k);
      ctx.navigate(`${BASE}/health?${next}`);
    };
    const summaryBox = h('section', { class: 'card', 'aria-labelledby': 'health-h', id: 'health-summary' });
    const list = exceptionList(ctx, { status, severity: severity || undefined, kind: kind || undefined }, () => void drawSummary());
    const daysSel = select('days', ['1', '7', '30', '90', '365'].map((d) => [d, `last ${d} day${d === '1' ? '' : 's'}`] as [string, string]), days);
    daysSel.id = 'health-days';
    daysSel.addEventListener('change', () => go({ days: daysSel.value }));
    const statusSel = select('status', [['open,acknowledged', 'open and acknowledged'], ['open', 'open'], ['acknowledged', 'acknowledged'], ['resolved', 'resolved'], ['open,acknowledged,resolved', 'all']], status);
    statusSel.id = 'exception-status';
    statusSel.addEventListener('change', () => go({ status: statusSel.value }));
    const severitySel = select('severity', [['', 'any severity'], ['high', 'high'], ['medium', 'medium'], ['low', 'low']], severity);
    severitySel.id = 'exception-severity';
    severitySel.addEventListener('change', () => go({ severity: severitySel.value }));
    const kindSel = select('kind', [['', 'any kind'], ...KINDS.map((k) => [k, readable(k)] as [string, string])], kind);
    kindSel.id = 'exception-kind';
    kindSel.addEventListener('change', () => go({ kind: kindSel.value }));

    const drawSummary = async () => {
      const s = await ctx.api.get<Summary>('/v1/knowledge-health/summary', { query: { days } });
      const ec = s.evidence_completeness;
      replace(
        summaryBox,
        h('h2', { id: 'health-h' }, 'Summary ', h('span', { class: `pill health-${s.state}`, id: 'health-state' }, s.state)),
        h('p', { class: 'muted' }, `${when(s.window.since)} to ${when(s.window.until)}`),
        s.reasons.length
          ? h('ul', { class: 'reasons' }, s.reasons.map((r) => h('li', {}, `${readable(r.metric)}: ${r.value} (${r.level} at ${r.threshold})`)))
          : h('p', {}, 'Nothing reaches the attention thresholds.'),
        h('div', { class: 'cols' },
          h('div', {}, h('h3', {}, 'Evidence completeness'),
            h('p', { class: 'big', id: 'evidence-completeness' }, ec.value === null ? 'no claims yet' : `${Math.round(ec.value * 1000) / 10}%`),
            h('p', { class: 'muted' }, `${ec.claims} claims: ${ec.evidenced} evidenced, ${ec.sourced_only} sourced only, ${ec.unsupported} unsupported`)),
          h('div', {}, h('h3', {}, 'Exceptions'),
            h('p', { class: 'big' }, `${s.exceptions.open} open, ${s.exceptions.acknowledged} acknowledged`),
            h('ul', { class: 'plain' }, Object.entries(s.exceptions.by_kind).map(([k, v]) => h('li', {}, `${readable(k)} (${v.severity}): ${v.open} open, ${v.acknowledged} acknowledged`))))),
        h('div', { class: 'cols' },
          h('div', {}, h('h3', {}, 'The graph now'), h('dl', { class: 'fields' }, Object.entries(s.counts).map(([k, v]) => [h('dt', {}, readable(k)), h('dd', {}, String(v))]))),
          h('div', {}, h('h3', {}, 'In the window'), h('dl', { class: 'fields' }, Object.entries(s.activity).map(([k, v]) => [h('dt', {}, readable(k)), h('dd', {}, String(v))])))),
      );
    };

    replace(
      main,
      h('h1', {}, 'Knowledge Health'),
      h('div', { class: 'row toolbar' }, h('label', { for: 'health-days' }, 'Window'), daysSel),
      summaryBox,
      h('section', { class: 'card', 'aria-labelledby': 'exceptions-h' },
        h('h2', { id: 'exceptions-h' }, 'Exceptions'),
        h('div', { class: 'row toolbar' },
          h('label', { for: 'exception-status' }, 'Status'), statusSel,
          h('label', { for: 'exception-severity' }, 'Severity'), severitySel,
          h('label', { for: 'exception-kind' }, 'Kind'), kindSel),
        canWrite(ctx.role) ? h('p', { class: 'muted' }, 'Acknowledging creates a Task that targets the subject; the exception stays acknowledged while that Task is pending or in progress.') : null,
        list.el),
    );
    await Promise.all([drawSummary(), list.load()]);
  },
};
