import { useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { when } from '../format.js';
import { BASE, href } from '../router.js';
import type { Page } from '../types.js';
import { BusyButton, ErrorBox, Select, useLoad } from '../ui.js';

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

/**
 * One proposal: approve (with its name or fields edited) or reject (with a reason). `refresh`
 * reads the list again after a decision; `notify` tells the page of an approval that could not
 * be written. `picked`/`onPick` select it for a batch action where the page offers one.
 */
export function ProposalCard({ ctx, p, refresh, notify, picked, onPick }: { ctx: Ctx; p: Proposal; refresh(): Promise<void>; notify(message: string): void; picked?: boolean; onPick?(on: boolean): void }) {
  const add = p.changes_json.adds[0] ?? {};
  const proposedFields = JSON.stringify(add.fields ?? {});
  const [name, setName] = useState(add.canonical_name ?? '');
  const [fields, setFields] = useState(proposedFields);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const open = OPEN.has(p.review_status);
  const who = add.canonical_name ?? p.id;
  return (
    <li className="proposal card" data-id={p.id}>
      <div className="row">
        {open && onPick ? <input type="checkbox" aria-label={`Select ${who}`} checked={picked ?? false} onChange={(e) => onPick(e.currentTarget.checked)} /> : null}
        <strong className="proposal-name">{add.canonical_name ?? '(unnamed)'}</strong>
        <span className="pill">{p.object_type}</span>
        <span className={`status status-${p.review_status}`}>{p.review_status}</span>
        {p.risk_level === 'high' ? <span className="pill danger">high risk</span> : null}
      </div>
      <p className="muted">{`${p.proposal_type} · confidence ${p.confidence ?? '—'} · ${when(p.created_at)}`}</p>
      {p.rationale ? <p>{p.rationale}</p> : null}
      {add.fields && Object.keys(add.fields).length ? (
        <p>
          {'Fields: '}
          {Object.entries(add.fields)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(', ')}
        </p>
      ) : null}
      {p.source_uids.length ? (
        <p>
          {'Sources: '}
          {p.source_uids.map((u, i) => (
            <span key={u}>
              {i ? ', ' : ''}
              <a href={href('nodes', u)}>{u}</a>
            </span>
          ))}
        </p>
      ) : null}
      {p.proposed_node_uid ? (
        <p>
          {'Object: '}
          <a href={href('nodes', p.proposed_node_uid)}>{p.proposed_node_uid}</a>
        </p>
      ) : null}
      {p.applied_error ? <p className="error">{p.applied_error}</p> : null}
      {open ? (
        <div className="row">
          <input type="text" name="canonical_name" aria-label={`Name of proposal ${who}`} value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <input type="text" name="fields" className="mono" placeholder="fields as JSON" aria-label={`Fields of ${who} (JSON)`} value={fields} onChange={(e) => setFields(e.currentTarget.value)} />
          <BusyButton
            className="small"
            onError={setError}
            action={async () => {
              const edits: Record<string, unknown> = {};
              if (name.trim() && name.trim() !== add.canonical_name) edits.canonical_name = name.trim();
              if (fields.trim() !== proposedFields) {
                try {
                  edits.fields = JSON.parse(fields);
                } catch {
                  throw new Error('The fields are not valid JSON: write them as {"name": value, …}.');
                }
              }
              const r = await ctx.api.post<Proposal>('/v1/ontology/proposals/{id}/approve', Object.keys(edits).length ? { edits } : {}, { path: { id: p.id } });
              await refresh();
              if (r.review_status === 'apply_failed') notify(`“${add.canonical_name}” was approved but could not be written: ${r.applied_error}. Find it under “Apply failed”.`);
            }}
          >
            Approve
          </BusyButton>
          <input type="text" name="reason" placeholder="reason (optional)" aria-label={`Reason to reject ${who}`} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          <BusyButton
            className="small danger"
            onError={setError}
            action={async () => {
              await ctx.api.post('/v1/ontology/proposals/{id}/reject', reason.trim() ? { reason: reason.trim() } : {}, { path: { id: p.id } });
              await refresh();
            }}
          >
            Reject
          </BusyButton>
        </div>
      ) : null}
      <ErrorBox error={error} />
    </li>
  );
}

function Proposals({ ctx, query: q }: PageProps) {
  const status = q.get('status') ?? 'pending';
  const list = useLoad(() => ctx.api.get<Page<Proposal>>('/v1/ontology/proposals', { query: { status, limit: 100 } }), []);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const refresh = async () => {
    await list.reload();
    setPicked(new Set());
  };
  const batch = (kind: 'approve' | 'reject') => async () => {
    if (picked.size === 0) throw new Error('Select proposals first.');
    const r = await ctx.api.post<BatchResult>(kind === 'approve' ? '/v1/ontology/proposals/batch-approve' : '/v1/ontology/proposals/batch-reject', { ids: [...picked] });
    await refresh();
    if (r.failed) setError(new Error(`${r.succeeded} done, ${r.failed} failed: ${r.results.filter((x) => x.error).map((x) => x.error).join('; ')}`));
  };
  return (
    <>
      <h1>Ontology proposals</h1>
      <div className="row toolbar">
        <label htmlFor="proposal-status">Status</label>
        <Select
          id="proposal-status"
          name="status"
          value={status}
          onChange={(e) => ctx.navigate(`${BASE}/review/proposals?status=${e.currentTarget.value}`)}
          options={[['pending', 'Pending'], ['approval_required', 'Approval required'], ['applied', 'Applied'], ['apply_failed', 'Apply failed'], ['rejected', 'Rejected']]}
        />
        {OPEN.has(status) ? (
          <>
            <BusyButton onError={setError} action={batch('approve')}>
              Approve selected
            </BusyButton>
            <BusyButton className="danger" onError={setError} action={batch('reject')}>
              Reject selected
            </BusyButton>
          </>
        ) : null}
      </div>
      <ErrorBox error={error ?? list.error} />
      <ul className="proposals" aria-live="polite">
        {!list.data ? null : list.data.items.length ? (
          list.data.items.map((p) => (
            <ProposalCard
              key={`${p.id}-${p.review_status}`}
              ctx={ctx}
              p={p}
              refresh={refresh}
              notify={(m) => setError(new Error(m))}
              picked={picked.has(p.id)}
              onPick={(on) =>
                setPicked((s) => {
                  const next = new Set(s);
                  if (on) next.add(p.id);
                  else next.delete(p.id);
                  return next;
                })
              }
            />
          ))
        ) : (
          <li className="empty">Nothing to review here.</li>
        )}
      </ul>
    </>
  );
}

export const proposals: Area = {
  id: 'proposals',
  routes: ['/review/proposals'],
  nav: { label: 'Ontology proposals', path: '/review/proposals', group: 'Review' },
  title: () => 'Ontology proposals',
  Page: Proposals,
};
