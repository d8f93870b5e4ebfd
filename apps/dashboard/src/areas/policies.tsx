import { useEffect, useState } from 'react';
import { ApiError } from '../api.js';
import type { Area, Ctx, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { messageOf, when } from '../format.js';
import { BASE } from '../router.js';
import type { Page } from '../types.js';
import { BusyButton, ErrorBox, Field, Select, Table, useAction, useLoad, useMounted } from '../ui.js';

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
function policyError(err: unknown): Error {
  const details = err instanceof ApiError ? (err.body as { errors?: { path: string; message: string }[] } | null)?.errors : undefined;
  return new Error(messageOf(err) + (details?.length ? ' — ' + details.map((d) => `${d.path}: ${d.message}`).join('; ') : ''));
}

const auditHref = (q: Record<string, string>) => `${BASE}/governance/audit?${new URLSearchParams(q)}`;

function NewPolicy({ ctx, created }: { ctx: Ctx; created(): Promise<void> }) {
  const [name, setName] = useState('');
  const [effect, setEffect] = useState<Effect>('deny');
  const [priority, setPriority] = useState('0');
  const [match, setMatch] = useState('{\n  "node_types": ["Claim"]\n}');
  const [status, setStatus] = useState<'draft' | 'shadow' | 'published'>('shadow');
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="new-policy-h"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(match) as Record<string, unknown>;
          } catch {
            throw new Error('The match is not valid JSON.');
          }
          try {
            await ctx.api.post('/v1/governance/policies', { name: name.trim(), effect, priority: Number(priority), match: parsed, status });
          } catch (err) {
            throw policyError(err);
          }
          setName('');
          await created();
        });
      }}
    >
      <h2 id="new-policy-h">New policy</h2>
      <Field label="Name">
        <input type="text" name="name" required maxLength={200} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Effect">
        <Select name="effect" value={effect} onChange={(e) => setEffect(e.currentTarget.value as Effect)} options={['deny', 'require_approval', 'allow']} />
      </Field>
      <Field label="Priority" hint="The highest priority wins; at equal priority deny beats require_approval beats allow.">
        <input type="number" name="priority" min={-1000} max={1000} value={priority} onChange={(e) => setPriority(e.currentTarget.value)} />
      </Field>
      <Field label="Match (JSON)" hint="principals, routes, tools, node_types, layers, min_classification, spaces, projects: every condition present must hold.">
        <textarea name="match" rows={4} required value={match} onChange={(e) => setMatch(e.currentTarget.value)} />
      </Field>
      <Field label="Start as" hint="shadow: evaluated and logged, never enforced.">
        <Select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value as 'draft' | 'shadow' | 'published')} options={['draft', 'shadow', 'published']} />
      </Field>
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Create policy
      </button>
    </form>
  );
}

function Policies({ ctx, query: q }: PageProps) {
  const admin = isAdmin(ctx.role);
  const status = q.get('status') ?? '';
  const list = useLoad(() => ctx.api.get<Page<Policy>>('/v1/governance/policies', { query: { status: q.get('status') ?? undefined, limit: 1000 } }), []);
  const [error, setError] = useState<unknown>(null);
  const [synced, setSynced] = useState('');
  if (!list.data) return <ErrorBox error={list.error} />;
  const page = list.data;
  return (
    <>
      <h1>Policies</h1>
      <section className="card" aria-labelledby="policies-h">
        <h2 id="policies-h">{`Policies (${page.items.length})`}</h2>
        <Field label="Status">
          <Select
            name="status"
            value={status}
            onChange={(e) => ctx.navigate(`${BASE}/governance/policies${e.currentTarget.value ? `?status=${e.currentTarget.value}` : ''}`)}
            options={[['', 'Any status'], 'draft', 'shadow', 'published', 'rejected']}
          />
        </Field>
        <Table<Policy>
          caption="Policies"
          rowKey={(p) => p.uid}
          columns={[
            [
              'Policy',
              (p) => (
                <>
                  <strong>{p.name}</strong>
                  {p.description ? <div className="muted">{p.description}</div> : null}
                </>
              ),
            ],
            [
              'Status',
              (p) => (
                <span className={`status status-${p.status}`} data-policy={p.uid}>
                  {p.status}
                </span>
              ),
            ],
            ['Effect', (p) => p.effect],
            ['Priority', (p) => String(p.priority)],
            ['Match', (p) => <code className="match">{JSON.stringify(p.match)}</code>],
            ['Version', (p) => `v${p.version} · ${when(p.updated_at)}`],
            [
              '',
              (p) => (
                <div className="row-actions">
                  <a href={auditHref({ policy_uid: p.uid, kind: 'policy_decision' })} aria-label={`Decisions of ${p.name}`}>
                    Decisions
                  </a>
                  {admin
                    ? NEXT[p.status].map((to) => (
                        <BusyButton
                          key={to}
                          className={`small${to === 'rejected' ? ' danger' : ''}`}
                          aria-label={`${VERB[to]} ${p.name}`}
                          onError={(err) => setError(err ? policyError(err) : null)}
                          action={async () => {
                            await ctx.api.patch('/v1/governance/policies/{policy_uid}', { status: to, expected_version: p.version }, { path: { policy_uid: p.uid } });
                            await list.reload();
                          }}
                        >
                          {VERB[to]}
                        </BusyButton>
                      ))
                    : null}
                </div>
              ),
            ],
          ]}
          items={page.items}
          empty="No policies."
        />
        <ErrorBox error={error} />
        {admin ? (
          <BusyButton
            onError={setError}
            action={async () => {
              const r = await ctx.api.post<{ synced_at: string; policies: number; nodes_created: number; nodes_updated: number; nodes_tombstoned: number }>('/v1/governance/sync');
              setSynced(`Synced ${when(r.synced_at)}: ${r.policies} policies, ${r.nodes_created} created, ${r.nodes_updated} updated, ${r.nodes_tombstoned} tombstoned.`);
            }}
          >
            Sync to the graph
          </BusyButton>
        ) : null}
        <p role="status" className="muted">
          {synced}
        </p>
      </section>
      {admin ? <NewPolicy ctx={ctx} created={list.reload} /> : <p className="muted">Owners and admins create and change policies.</p>}
    </>
  );
}

export const policies: Area = {
  id: 'policies',
  routes: ['/governance/policies'],
  nav: { label: 'Policies', path: '/governance/policies', group: 'Governance' },
  title: () => 'Policies',
  Page: Policies,
};

function decisionText(r: AuditRecord): string {
  const d = r.decision;
  if (!d) return r.status ?? '';
  const shadow = d.shadow.map((s) => `shadow ${s.policy_uid.slice(0, 8)}… would ${s.effect}`).join('; ');
  return `${d.effect}${d.enforced ? ' (enforced)' : ''}${shadow ? ` · ${shadow}` : ''}${d.reason ? ` · ${d.reason}` : ''}`;
}

type AuditPage = { items: AuditRecord[]; has_more: boolean; next_cursor: string | null };

const FILTERS = ['kind', 'principal', 'policy_uid', 'target_uid', 'decision', 'enforced', 'since', 'until', 'order'];

function Audit({ ctx, query: q }: PageProps) {
  const [f, setF] = useState(() => ({
    kind: q.get('kind') ?? '',
    principal: q.get('principal') ?? '',
    policy: q.get('policy_uid') ?? '',
    target: q.get('target_uid') ?? '',
    decision: q.get('decision') ?? '',
    enforced: q.get('enforced') ?? '',
    since: q.get('since')?.replace(/Z$/, '').slice(0, 16) ?? '',
    until: q.get('until')?.replace(/Z$/, '').slice(0, 16) ?? '',
    order: q.get('order') ?? 'desc',
  }));
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    const v = e.currentTarget.value;
    setF((o) => ({ ...o, [k]: v }));
  };
  const query: Record<string, string> = {};
  for (const k of FILTERS) if (q.get(k)) query[k] = q.get(k)!;
  const [records, setRecords] = useState<AuditRecord[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mounted = useMounted();
  const addPage = async (after: string | null) => {
    const r = await ctx.api.get<AuditPage>('/v1/governance/audit', { query: { ...query, cursor: after ?? undefined } });
    if (!mounted()) return;
    setRecords((old) => [...old, ...r.items]);
    setCursor(r.next_cursor);
    setHasMore(r.has_more);
    setLoaded(true);
  };
  useEffect(() => {
    addPage(null).catch((err) => mounted() && setError(err));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const shown = records.length;
  return (
    <>
      <h1>Audit trail</h1>
      <form
        className="card filters"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault();
          const params: Record<string, string> = {
            kind: f.kind,
            principal: f.principal.trim(),
            policy_uid: f.policy.trim(),
            target_uid: f.target.trim(),
            decision: f.decision,
            enforced: f.enforced,
            since: f.since ? `${f.since}:00Z` : '',
            until: f.until ? `${f.until}:00Z` : '',
            order: f.order === 'desc' ? '' : f.order,
          };
          ctx.navigate(auditHref(Object.fromEntries(Object.entries(params).filter(([, v]) => v))));
        }}
      >
        <Field label="Kind">
          <Select name="kind" value={f.kind} onChange={set('kind')} options={[['', 'Every kind'], ...KINDS.map((k) => [k, k.replace(/_/g, ' ')] as const)]} />
        </Field>
        <Field label="Principal">
          <input type="text" name="principal" placeholder="user:<id>, api_key:<id>, agent:<id>" value={f.principal} onChange={set('principal')} />
        </Field>
        <Field label="Policy uid">
          <input type="text" name="policy_uid" value={f.policy} onChange={set('policy')} />
        </Field>
        <Field label="Target uid">
          <input type="text" name="target_uid" value={f.target} onChange={set('target')} />
        </Field>
        <Field label="Decision">
          <Select name="decision" value={f.decision} onChange={set('decision')} options={[['', 'Any decision'], 'allow', 'deny', 'require_approval']} />
        </Field>
        <Field label="Enforced">
          <Select name="enforced" value={f.enforced} onChange={set('enforced')} options={[['', 'Either'], ['true', 'enforced'], ['false', 'not enforced']]} />
        </Field>
        <Field label="Since (UTC)">
          <input type="datetime-local" name="since" value={f.since} onChange={set('since')} />
        </Field>
        <Field label="Until (UTC)">
          <input type="datetime-local" name="until" value={f.until} onChange={set('until')} />
        </Field>
        <Field label="Order">
          <Select name="order" value={f.order} onChange={set('order')} options={[['desc', 'newest first'], ['asc', 'oldest first']]} />
        </Field>
        <button type="submit">Filter</button>
      </form>
      <section className="card" aria-labelledby="audit-h">
        <h2 id="audit-h">
          {'Records '}
          <span className="muted" id="audit-count">
            {loaded ? `${shown}${hasMore ? '+' : ''} record${shown === 1 ? '' : 's'}` : ''}
          </span>
        </h2>
        {isAdmin(ctx.role) ? null : <p className="muted">You see the records of your own requests; owners and admins see every record.</p>}
        <div className="table-wrap">
          <table className="audit">
            <caption className="visually-hidden">Audit records</caption>
            <thead>
              <tr>
                {['When', 'Kind', 'Principal', 'Request', 'Targets', 'Decision'].map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {records.map((rec) => (
                <tr key={rec.id} className={`audit-${rec.kind}`} data-id={rec.id}>
                  <td>{when(rec.occurred_at)}</td>
                  <td>{rec.kind.replace(/_/g, ' ')}</td>
                  <td>{rec.principal.id.includes(':') || rec.principal.kind === 'system' ? rec.principal.id : `${rec.principal.kind}:${rec.principal.id}`}</td>
                  <td>{rec.route ? `${rec.method ?? ''} ${rec.route}` : rec.tool_uid ? `tool ${rec.tool_uid}` : rec.event_type}</td>
                  <td className="mono-small">{[...rec.target_uids, ...(rec.subject_uid && !rec.target_uids.includes(rec.subject_uid) ? [rec.subject_uid] : [])].join(' ')}</td>
                  <td className="decision">{decisionText(rec)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <BusyButton hidden={!hasMore} onError={setError} action={() => addPage(cursor)}>
          Load more
        </BusyButton>
        <ErrorBox error={error} />
      </section>
    </>
  );
}

export const audit: Area = {
  id: 'audit',
  routes: ['/governance/audit'],
  nav: { label: 'Audit trail', path: '/governance/audit', group: 'Governance' },
  title: () => 'Audit trail',
  Page: Audit,
};
