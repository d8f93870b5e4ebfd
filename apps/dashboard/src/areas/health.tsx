import { forwardRef, useCallback, useEffect, useImperativeHandle, useState, type ReactNode } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { when } from '../format.js';
import { BASE, href } from '../router.js';
import type { Role } from '../types.js';
import { BusyButton, ErrorBox, Select, Table, useLoad, useMounted } from '../ui.js';

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
export interface ExceptionPage {
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

function SubjectLink({ e }: { e: HealthException }) {
  const name = e.subject.label ?? e.subject.uid;
  if (e.subject.type === 'node') return <a href={href('nodes', e.subject.uid)}>{name}</a>;
  if (e.subject.type === 'edge' && typeof e.detail.from_uid === 'string')
    return (
      <span>
        {`${e.subject.edge_type ?? 'edge'} from `}
        <a href={href('nodes', e.detail.from_uid)}>{e.detail.from_uid}</a>
      </span>
    );
  return <a href={`${BASE}/briefings/schedules/${encodeURIComponent(e.subject.uid)}`}>{`schedule ${name}`}</a>;
}

/** What a page holding an exception list may ask of it: read the first page again. */
export interface ExceptionListHandle {
  reload(): Promise<void>;
}

/**
 * A list of exceptions with "Acknowledge" for those that can be (open, a node to target, a
 * role that writes). `query` is the filter of `GET /v1/knowledge-health/exceptions`; "More"
 * follows `next_cursor`. `onLoad` hears each first page (a count to show); `onChange` an
 * acknowledgement (a summary to redraw). A refusal to list goes to `onLoadError`.
 */
export const ExceptionList = forwardRef<
  ExceptionListHandle,
  { ctx: Ctx; query: Record<string, string | undefined>; onChange?(): void; onLoad?(p: ExceptionPage): void; onLoadError(err: unknown): void }
>(function ExceptionList({ ctx, query, onChange, onLoad, onLoadError }, ref) {
  const [rows, setRows] = useState<HealthException[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mounted = useMounted();
  const fetchPage = (after: string | null) => ctx.api.get<ExceptionPage>('/v1/knowledge-health/exceptions', { query: { ...query, limit: 50, cursor: after ?? undefined } });
  const load = useCallback(async () => {
    try {
      const p = await fetchPage(null);
      if (!mounted()) return;
      setRows(p.items);
      setCursor(p.next_cursor);
      setHasMore(p.has_more);
      onLoad?.(p);
    } catch (err) {
      if (mounted()) onLoadError(err);
    }
    // the query is fixed for the page's life (a new filter is a new page)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  useImperativeHandle(ref, () => ({ reload: load }), [load]);
  useEffect(() => {
    void load();
  }, [load]);
  if (!rows) return <div className="exceptions" aria-live="polite" />;
  const acknowledge = (e: HealthException): ReactNode => {
    const uid = target(e);
    if (!uid || e.status !== 'open' || !canWrite(ctx.role)) return null;
    return (
      <BusyButton
        className="small"
        aria-label={`Acknowledge ${readable(e.kind)}: ${e.subject.label ?? e.subject.uid}`}
        onError={setError}
        action={async () => {
          await ctx.api.post('/agent/plan', { action: 'create_task', label: `Look into ${readable(e.kind)}: ${e.subject.label ?? e.subject.uid}`.slice(0, 500), related_uids: [uid] });
          await load();
          onChange?.();
        }}
      >
        Acknowledge
      </BusyButton>
    );
  };
  return (
    <div className="exceptions" aria-live="polite">
      <Table<HealthException>
        caption="Knowledge Health exceptions"
        rowKey={(e) => e.id}
        columns={[
          ['Severity', (e) => <span className={`pill severity-${e.severity}`}>{e.severity}</span>],
          [
            'Exception',
            (e) => (
              <>
                <strong>{readable(e.kind)}</strong>
                <div>
                  <SubjectLink e={e} />
                </div>
              </>
            ),
          ],
          [
            'Status',
            (e) => (
              <>
                <span className={`status status-${e.status}`} data-exception={e.id}>
                  {e.status}
                </span>
                {e.task_uids.length ? (
                  <div className="muted">
                    {'task '}
                    {e.task_uids.map((t, i) => (
                      <span key={t}>
                        {i ? ', ' : ''}
                        <a href={href('nodes', t)}>{t}</a>
                      </span>
                    ))}
                  </div>
                ) : null}
              </>
            ),
          ],
          ['Since', (e) => when(e.first_detected_at)],
          ['', acknowledge],
        ]}
        items={rows}
        empty="No exceptions: nothing needs attention."
      />
      <BusyButton
        className="small"
        hidden={!hasMore}
        onError={setError}
        action={async () => {
          const p = await fetchPage(cursor);
          setRows((r) => [...(r ?? []), ...p.items]);
          setCursor(p.next_cursor);
          setHasMore(p.has_more);
        }}
      >
        More
      </BusyButton>
      <ErrorBox error={error} />
    </div>
  );
});

function SummaryView({ s }: { s: Summary }) {
  const ec = s.evidence_completeness;
  const pairs = (o: Record<string, number>) =>
    Object.entries(o).map(([k, v]) => [<dt key={`t-${k}`}>{readable(k)}</dt>, <dd key={`d-${k}`}>{String(v)}</dd>]);
  return (
    <>
      <h2 id="health-h">
        {'Summary '}
        <span className={`pill health-${s.state}`} id="health-state">
          {s.state}
        </span>
      </h2>
      <p className="muted">{`${when(s.window.since)} to ${when(s.window.until)}`}</p>
      {s.reasons.length ? (
        <ul className="reasons">
          {s.reasons.map((r) => (
            <li key={r.metric}>{`${readable(r.metric)}: ${r.value} (${r.level} at ${r.threshold})`}</li>
          ))}
        </ul>
      ) : (
        <p>Nothing reaches the attention thresholds.</p>
      )}
      <div className="cols">
        <div>
          <h3>Evidence completeness</h3>
          <p className="big" id="evidence-completeness">
            {ec.value === null ? 'no claims yet' : `${Math.round(ec.value * 1000) / 10}%`}
          </p>
          <p className="muted">{`${ec.claims} claims: ${ec.evidenced} evidenced, ${ec.sourced_only} sourced only, ${ec.unsupported} unsupported`}</p>
        </div>
        <div>
          <h3>Exceptions</h3>
          <p className="big">{`${s.exceptions.open} open, ${s.exceptions.acknowledged} acknowledged`}</p>
          <ul className="plain">
            {Object.entries(s.exceptions.by_kind).map(([k, v]) => (
              <li key={k}>{`${readable(k)} (${v.severity}): ${v.open} open, ${v.acknowledged} acknowledged`}</li>
            ))}
          </ul>
        </div>
      </div>
      <div className="cols">
        <div>
          <h3>The graph now</h3>
          <dl className="fields">{pairs(s.counts)}</dl>
        </div>
        <div>
          <h3>In the window</h3>
          <dl className="fields">{pairs(s.activity)}</dl>
        </div>
      </div>
    </>
  );
}

function Health({ ctx, query: q }: PageProps) {
  const days = q.get('days') ?? '30';
  const status = q.get('status') ?? 'open,acknowledged';
  const severity = q.get('severity') ?? '';
  const kind = q.get('kind') ?? '';
  const go = (change: Record<string, string>) => {
    const next = new URLSearchParams({ days, status, severity, kind, ...change });
    for (const [k, v] of [...next]) if (!v) next.delete(k);
    ctx.navigate(`${BASE}/health?${next}`);
  };
  const summary = useLoad(() => ctx.api.get<Summary>('/v1/knowledge-health/summary', { query: { days } }), []);
  const [listError, setListError] = useState<unknown>(null);
  return (
    <>
      <h1>Knowledge Health</h1>
      <div className="row toolbar">
        <label htmlFor="health-days">Window</label>
        <Select id="health-days" name="days" value={days} onChange={(e) => go({ days: e.currentTarget.value })} options={['1', '7', '30', '90', '365'].map((d) => [d, `last ${d} day${d === '1' ? '' : 's'}`] as const)} />
      </div>
      <section className="card" aria-labelledby="health-h" id="health-summary">
        {summary.data ? <SummaryView s={summary.data} /> : null}
        <ErrorBox error={summary.error} />
      </section>
      <section className="card" aria-labelledby="exceptions-h">
        <h2 id="exceptions-h">Exceptions</h2>
        <div className="row toolbar">
          <label htmlFor="exception-status">Status</label>
          <Select
            id="exception-status"
            name="status"
            value={status}
            onChange={(e) => go({ status: e.currentTarget.value })}
            options={[['open,acknowledged', 'open and acknowledged'], ['open', 'open'], ['acknowledged', 'acknowledged'], ['resolved', 'resolved'], ['open,acknowledged,resolved', 'all']]}
          />
          <label htmlFor="exception-severity">Severity</label>
          <Select id="exception-severity" name="severity" value={severity} onChange={(e) => go({ severity: e.currentTarget.value })} options={[['', 'any severity'], ['high', 'high'], ['medium', 'medium'], ['low', 'low']]} />
          <label htmlFor="exception-kind">Kind</label>
          <Select id="exception-kind" name="kind" value={kind} onChange={(e) => go({ kind: e.currentTarget.value })} options={[['', 'any kind'], ...KINDS.map((k) => [k, readable(k)] as const)]} />
        </div>
        {canWrite(ctx.role) ? <p className="muted">Acknowledging creates a Task that targets the subject; the exception stays acknowledged while that Task is pending or in progress.</p> : null}
        <ExceptionList ctx={ctx} query={{ status, severity: severity || undefined, kind: kind || undefined }} onChange={() => void summary.reload()} onLoadError={setListError} />
        <ErrorBox error={listError} />
      </section>
    </>
  );
}

export const health: Area = {
  id: 'health',
  routes: ['/health'],
  nav: { label: 'Knowledge Health', path: '/health', group: 'Review' },
  title: () => 'Knowledge Health',
  Page: Health,
};
