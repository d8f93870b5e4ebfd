import { useEffect, useRef, useState } from 'react';
import type { components } from '../../../../packages/client/src/schema';
import type { Area, Ctx, PageProps } from '../context.js';
import { when } from '../format.js';
import { segments } from '../quote.js';
import { BASE, href } from '../router.js';
import type { Job, NodeRecord, Page, Role } from '../types.js';
import { BusyButton, ErrorBox, Field, Select, Table, useAction, useLoad, useMounted } from '../ui.js';

/**
 * Projects and their living briefs: findings, tensions and open questions, each citation
 * opening the passage it quotes; pin, unpin and correct; regenerate (an LLM regeneration is a
 * job, followed until it ends); the version history with its material changes.
 */
// the brief's records as the service's OpenAPI document declares them (generated client types)
type Schemas = components['schemas'];
type Kind = Schemas['BriefItemRecord']['kind'];
type BriefItem = Schemas['BriefItemRecord'];
type Change = Schemas['BriefChangeRecord'];
type Citation = Schemas['CitationRecord'];
type BriefVersion = Schemas['BriefVersionRecord'];
type BriefState = Schemas['BriefStateResponse'];
type HistoryEntry = Schemas['BriefHistoryEntry'];

const KINDS: [Kind, string][] = [
  ['finding', 'Findings'],
  ['tension', 'Tensions'],
  ['open_question', 'Open questions'],
];
const POLL_MS = 600;

/** The Project role a user's organization role gives (REFERENCE §12.2); grants may raise it, the server decides. */
export function projectRole(role: Role | null): 'viewer' | 'editor' | 'manager' {
  return role === 'owner' || role === 'admin' ? 'manager' : role === 'member' ? 'editor' : 'viewer';
}

function Projects({ ctx, query: q }: PageProps) {
  const [filter, setFilter] = useState(q.get('q') ?? '');
  const { data: page, error } = useLoad(() => ctx.api.get<Page<NodeRecord>>('/nodes', { query: { type: 'Project', label_contains: q.get('q') ?? undefined, limit: 100 } }), []);
  return (
    <>
      <h1>Projects</h1>
      <form
        className="inline-form card"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          ctx.navigate(`${BASE}/projects${filter.trim() ? `?q=${encodeURIComponent(filter.trim())}` : ''}`);
        }}
      >
        <Field label="Label contains">
          <input type="search" name="label_contains" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} />
        </Field>
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={error} />
      {page ? (
        <section className="card" aria-labelledby="projects-h">
          <h2 id="projects-h">{`Projects (${page.items.length}${page.has_more ? '+' : ''})`}</h2>
          <Table<NodeRecord>
            caption="Projects"
            rowKey={(p) => p.uid}
            columns={[
              ['Project', (p) => <a href={href('projects', p.uid)}>{p.label}</a>],
              ['Summary', (p) => p.summary ?? ''],
              ['Created', (p) => when(p.created_at)],
            ]}
            items={page.items}
            empty="No Projects yet: a Project is a node of type Project; documents join it through PartOfProject edges."
          />
        </section>
      ) : null}
    </>
  );
}

export const projects: Area = {
  id: 'projects',
  routes: ['/projects'],
  nav: { label: 'Projects', path: '/projects', group: 'Projects' },
  title: () => 'Projects',
  Page: Projects,
};

/** The cited passage: the chunk's text with the quoted bytes marked. */
function Passage({ c, chunk }: { c: Citation; chunk: NodeRecord }) {
  const ref = useRef<HTMLQuoteElement>(null);
  useEffect(() => {
    const mark = ref.current?.querySelector<HTMLElement>('mark');
    if (mark && typeof mark.scrollIntoView === 'function') mark.scrollIntoView({ block: 'nearest' });
  }, [c, chunk]);
  const text = String(chunk.props['content'] ?? '');
  const marked = c.quote ? segments(text, [{ label: 'cited', selector: { exact: c.quote, start: c.char_start ?? undefined, end: c.char_end ?? undefined } }]) : [{ text, marks: [] }];
  return (
    <>
      <h3 id="passage-h">{`${c.document_title} · chunk ${c.chunk_index}${c.page_start ? ` · page ${c.page_start}${c.page_end && c.page_end !== c.page_start ? `–${c.page_end}` : ''}` : ''}`}</h3>
      <blockquote className="chunk-text passage" ref={ref}>
        {marked.map((s, i) =>
          s.marks.length ? (
            <mark key={i} className="focus">
              {s.text}
            </mark>
          ) : (
            s.text
          ),
        )}
      </blockquote>
      <p>
        <a href={href('nodes', c.chunk_uid)}>Open the chunk</a>
        {' · '}
        <a href={href('documents', c.document_uid)}>Open the document</a>
        {c.node_uid ? (
          <>
            {' · '}
            <a href={href('nodes', c.node_uid)}>Open the cited node</a>
          </>
        ) : null}
      </p>
    </>
  );
}

function citationLabel(c: Citation): string {
  return `${c.document_title} §${c.chunk_index}${c.quote ? `: “${c.quote.length > 80 ? c.quote.slice(0, 79) + '…' : c.quote}”` : ' (unanchored)'}`;
}

interface ItemHooks {
  ctx: Ctx;
  projectUid: string;
  current: BriefVersion;
  openPassage(c: Citation): Promise<void>;
  onError(err: unknown): void;
  reload(): Promise<void>;
  /** false for an old version: read-only */
  editable: boolean;
}

type Patch = { action: 'pin' | 'unpin' | 'correct'; text?: string; citations?: { chunk_uid: string; quote: string }[]; reason?: string };

function CorrectForm({ item, patch, hooks }: { item: BriefItem; patch(body: Patch): Promise<unknown>; hooks: ItemHooks }) {
  const chunks = [...new Map(item.citations.map((c) => [c.chunk_uid, c])).values()];
  const [text, setText] = useState(item.text);
  const [chunk, setChunk] = useState(chunks[0]?.chunk_uid ?? '');
  const [quote, setQuote] = useState(item.citations.find((c) => c.quote)?.quote ?? '');
  const [reason, setReason] = useState('');
  const action = useAction();
  useEffect(() => {
    if (action.error) hooks.onError(action.error);
  }, [action.error, hooks]);
  return (
    <details className="correct">
      <summary>Correct</summary>
      <form
        className="correct-form"
        onSubmit={(e) => {
          e.preventDefault();
          hooks.onError(null);
          void action.run(async () => {
            await patch({ action: 'correct', text, citations: [{ chunk_uid: chunk.trim(), quote }], ...(reason.trim() ? { reason: reason.trim() } : {}) });
            await hooks.reload();
          });
        }}
      >
        <Field label="Corrected text">
          <textarea name="text" rows={3} required value={text} onChange={(e) => setText(e.currentTarget.value)} />
        </Field>
        <Field label="Cited chunk">
          {chunks.length ? (
            <Select name="chunk_uid" value={chunk} onChange={(e) => setChunk(e.currentTarget.value)} options={chunks.map((c) => [c.chunk_uid, `${c.document_title} §${c.chunk_index}`] as const)} />
          ) : (
            <input type="text" name="chunk_uid" required placeholder="uid of a chunk of this Project" value={chunk} onChange={(e) => setChunk(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Quote (exactly as in the chunk)">
          <input type="text" name="quote" required value={quote} onChange={(e) => setQuote(e.currentTarget.value)} />
        </Field>
        <Field label="Reason (optional)">
          <input type="text" name="reason" maxLength={500} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
          Save correction
        </button>
      </form>
    </details>
  );
}

function ItemView({ item, hooks }: { item: BriefItem; hooks: ItemHooks }) {
  const { ctx, projectUid, current } = hooks;
  const role = projectRole(ctx.role);
  const patch = (body: Patch) =>
    ctx.api.call('patch', '/projects/{project_uid}/brief/items/{item_id}', { path: { project_uid: projectUid, item_id: item.id }, body: { ...body, expected_version: current.version } });
  const controls = hooks.editable && role !== 'viewer';
  return (
    <li className="brief-item" data-id={item.id}>
      <p className="item-text">
        {item.text}
        {item.pinned ? <span className="pill">pinned</span> : null}
        {item.correction ? (
          <span className="pill" title={`Corrected by ${item.correction.by} ${when(item.correction.at)}${item.correction.reason ? `: ${item.correction.reason}` : ''}`}>
            corrected
          </span>
        ) : null}
        {item.stale ? <span className="pill danger">stale</span> : null}
      </p>
      <p className="muted small-print">{`#${item.rank} · ${item.origin}${item.confidence !== null ? ` · confidence ${item.confidence.toFixed(2)}` : ''} · since v${item.first_version}${item.correction ? ` · generated: “${item.generated_text}”` : ''}`}</p>
      {item.citations.length ? (
        <ul className="citations" aria-label="Citations">
          {item.citations.map((c, i) => (
            <li key={i}>
              <BusyButton className="link-button citation" onError={hooks.onError} action={() => hooks.openPassage(c)}>
                {citationLabel(c)}
              </BusyButton>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No citation.</p>
      )}
      {controls ? (
        <div className="item-actions">
          <BusyButton
            className="small"
            aria-label={`${item.pinned ? 'Unpin' : 'Pin'} “${item.text.slice(0, 60)}”`}
            onError={hooks.onError}
            action={async () => {
              await patch({ action: item.pinned ? 'unpin' : 'pin' });
              await hooks.reload();
            }}
          >
            {item.pinned ? 'Unpin' : 'Pin'}
          </BusyButton>
          <CorrectForm item={item} patch={patch} hooks={hooks} />
        </div>
      ) : null}
    </li>
  );
}

function BriefView({ v, hooks }: { v: BriefVersion; hooks: ItemHooks }) {
  return (
    <>
      {KINDS.map(([kind, title]) => {
        const items = v.items.filter((i) => i.kind === kind).sort((a, b) => a.rank - b.rank);
        return (
          <section className="card" aria-labelledby={`kind-${kind}`} key={kind}>
            <h2 id={`kind-${kind}`}>{`${title} (${items.length})`}</h2>
            {items.length ? (
              <ol className="brief-items">
                {items.map((i) => (
                  <ItemView key={`${i.id}-${v.version}-${i.text}-${i.pinned}`} item={i} hooks={hooks} />
                ))}
              </ol>
            ) : (
              <p className="empty">None in this version.</p>
            )}
          </section>
        );
      })}
    </>
  );
}

function ChangeList({ changes }: { changes: Change[] }) {
  if (changes.length === 0) return <p className="muted">No material change.</p>;
  return (
    <ul className="changes">
      {changes.map((c, i) => (
        <li key={i} className={`change change-${c.type}`}>
          <strong>{c.type.replace('_', ' ')}</strong>
          {` ${c.kind.replace('_', ' ')}: `}
          {c.before && c.after && c.before.text !== c.after.text ? (
            <>
              <del>{c.before.text}</del>
              {' → '}
              <ins>{c.after.text}</ins>
            </>
          ) : (
            ((c.after ?? c.before)?.text ?? c.item_id)
          )}
        </li>
      ))}
    </ul>
  );
}

/** What the regeneration box shows: nothing, a running job, its failure, or a note. */
type Regen = { running: string | null } | { failed: string } | { note: string } | null;

/** Follows an LLM regeneration job until it ends (or `stillHere` says the page was left). */
async function follow(ctx: Ctx, jobId: string, show: (r: Regen) => void, stillHere: () => boolean): Promise<Job | null> {
  for (;;) {
    const job = await ctx.api.get<Job>('/jobs/{id}', { path: { id: jobId } });
    if (!stillHere()) return null;
    show({ running: job.status });
    if (['completed', 'failed', 'cancelled'].includes(job.status)) {
      show(job.status === 'completed' ? null : { failed: job.error ?? `The regeneration ${job.status}.` });
      return job;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function RegenBox({ regen }: { regen: Regen }) {
  return (
    <div className="regen-progress" aria-live="polite">
      {regen === null ? null : 'running' in regen ? (
        <>
          {regen.running === null ? (
            <p>Regenerating…</p>
          ) : (
            <p>
              {'Regenerating: '}
              <span className={`status status-${regen.running}`} id="regen-status">
                {regen.running}
              </span>
            </p>
          )}
          <progress aria-label="Regeneration in progress" />
        </>
      ) : 'failed' in regen ? (
        <p className="error" role="alert">
          {regen.failed}
        </p>
      ) : (
        <p role="status">{regen.note}</p>
      )}
    </div>
  );
}

function RegenerateForm({ ctx, uid, setRegen, done, onError }: { ctx: Ctx; uid: string; setRegen(r: Regen): void; done(reused: boolean): Promise<void>; onError(e: unknown): void }) {
  const [mode, setMode] = useState<'auto' | 'structural' | 'llm'>('auto');
  const [force, setForce] = useState(false);
  const action = useAction();
  const mounted = useMounted();
  useEffect(() => {
    if (action.error) onError(action.error);
  }, [action.error, onError]);
  return (
    <form
      className="inline-form"
      aria-label="Regenerate the brief"
      onSubmit={(e) => {
        e.preventDefault();
        onError(null);
        void action.run(async () => {
          setRegen({ running: null });
          try {
            const r = await ctx.api.post<{ reused: boolean; job_id?: string; version?: BriefVersion }, '/projects/{project_uid}/brief/regenerate'>(
              '/projects/{project_uid}/brief/regenerate',
              { mode, force },
              { path: { project_uid: uid } },
            );
            if (r.job_id) {
              const job = await follow(ctx, r.job_id, setRegen, mounted);
              if (job?.status !== 'completed') return;
            } else setRegen(null);
            await done(r.reused);
          } catch (err) {
            setRegen(null);
            throw err;
          }
        });
      }}
    >
      <Field label="Generator">
        <Select name="mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as 'auto' | 'structural' | 'llm')} options={['auto', 'structural', 'llm']} />
      </Field>
      <label className="check">
        <input type="checkbox" name="force" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} /> even if nothing changed
      </label>
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Regenerate
      </button>
    </form>
  );
}

function ProjectPage({ ctx, params: { uid }, query: q }: PageProps) {
  const asked = q.get('version') ? Number(q.get('version')) : null;
  const { data, error: loadError, reload } = useLoad(async () => {
    const [project, state, history] = await Promise.all([
      ctx.api.get<NodeRecord>('/node/{uid}', { path: { uid } }),
      ctx.api.get<BriefState>('/projects/{project_uid}/brief', { path: { project_uid: uid } }),
      ctx.api.get<Page<HistoryEntry>>('/projects/{project_uid}/brief/history', { path: { project_uid: uid }, query: { limit: 100 } }),
    ]);
    document.title = `${project.label} · Strata`;
    const shown =
      asked && asked !== state.current_version
        ? await ctx.api.get<BriefVersion>('/projects/{project_uid}/brief/history/{version}', { path: { project_uid: uid, version: asked } })
        : state.brief;
    return { project, state, history, shown };
  }, []);
  const [error, setError] = useState<unknown>(null);
  const [regen, setRegen] = useState<Regen>(null);
  const [passage, setPassage] = useState<{ c: Citation; chunk: NodeRecord } | null>(null);
  const mounted = useMounted();
  const role = projectRole(ctx.role);
  const pending = data?.state.regeneration?.job_id ?? null;
  // a regeneration already running when the page opens is followed too
  useEffect(() => {
    if (!pending || role === 'viewer') return;
    void follow(ctx, pending, setRegen, mounted).then(
      async (job) => {
        if (job?.status === 'completed') await reload();
      },
      (err) => mounted() && setError(err),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pending]);
  if (!data)
    return loadError ? (
      <ErrorBox error={loadError} />
    ) : (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  const { project, state, history, shown } = data;
  const hooks: ItemHooks | null = shown
    ? {
        ctx,
        projectUid: uid,
        current: shown,
        onError: setError,
        reload,
        editable: shown.version === state.current_version,
        openPassage: async (c) => setPassage({ c, chunk: await ctx.api.get<NodeRecord>('/node/{uid}', { path: { uid: c.chunk_uid } }) }),
      }
    : null;
  return (
    <>
      <p className="crumbs">
        <a href={`${BASE}/projects`}>Projects</a>
        {' / '}
        <a href={href('nodes', uid)}>node</a>
        {' · '}
        <a href={`${BASE}/briefings/schedules?project_uid=${encodeURIComponent(uid)}`}>Briefing schedules</a>
      </p>
      <h1>{project.label}</h1>
      <section className="card" aria-labelledby="state-h">
        <h2 id="state-h">
          {'Living brief '}
          <span className={`pill status-${state.status}`} id="brief-status">
            {state.status}
          </span>
        </h2>
        {state.brief ? (
          <p>{`Version ${state.brief.version} · ${state.brief.trigger} · ${state.brief.generated_by}${state.brief.model ? ` (${state.brief.model})` : ''} · ${when(state.brief.created_at)} · from ${state.brief.source_counts.documents} documents, ${state.brief.source_counts.chunks} chunks, ${state.brief.source_counts.nodes} nodes, ${state.brief.source_counts.edges} edges`}</p>
        ) : (
          <p className="muted">No brief yet.</p>
        )}
        {state.status === 'stale' ? <p className="muted">Its sources changed since this version.</p> : null}
        {state.withheld_items ? <p className="muted">{`${state.withheld_items} item(s) withheld: they rest on nodes you cannot see.`}</p> : null}
        {state.last_error ? <p className="error">{`Last regeneration failed (${when(state.last_error.at)}): ${state.last_error.message}`}</p> : null}
        {shown?.summary ? <p className="summary">{shown.summary}</p> : null}
        {role !== 'viewer' ? (
          <RegenerateForm
            ctx={ctx}
            uid={uid}
            setRegen={setRegen}
            onError={setError}
            done={async (reused) => {
              if (asked) ctx.navigate(href('projects', uid));
              else await reload();
              if (reused) setRegen({ note: 'Nothing changed since the current version: it was kept.' });
            }}
          />
        ) : (
          <p className="muted">Viewers read the brief; members, admins and owners regenerate, pin and correct it.</p>
        )}
        <RegenBox regen={regen} />
        <ErrorBox error={error} />
      </section>
      {shown && shown.version !== state.current_version ? (
        <p className="notice" role="status">
          {`Showing version ${shown.version} (read-only). `}
          <a href={href('projects', uid)}>Back to the current version</a>
        </p>
      ) : null}
      {shown && hooks ? <BriefView v={shown} hooks={hooks} /> : null}
      <section className="card passage-box" hidden={!passage} aria-live="polite" aria-label="Cited passage">
        {passage ? <Passage c={passage.c} chunk={passage.chunk} /> : null}
      </section>
      <section className="card" aria-labelledby="versions-h">
        <h2 id="versions-h">{`Versions (${history.items.length})`}</h2>
        {history.items.length === 0 ? (
          <p className="empty">No version yet.</p>
        ) : (
          <ol className="versions" reversed>
            {history.items.map((v) => (
              <li key={v.version} data-version={v.version}>
                <details open={v.version === history.items[0]?.version}>
                  <summary>{`v${v.version} · ${v.trigger} · ${v.generated_by} · ${when(v.created_at)} · ${v.item_counts.finding} findings, ${v.item_counts.tension} tensions, ${v.item_counts.open_question} open questions · ${v.material_change_count} material change${v.material_change_count === 1 ? '' : 's'}`}</summary>
                  <ChangeList changes={v.material_changes} />
                </details>
                <a href={`${href('projects', uid)}?version=${v.version}`}>{`Open version ${v.version}`}</a>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

export const projectPage: Area = {
  id: 'project',
  routes: ['/projects/:uid'],
  title: () => 'Project',
  Page: ProjectPage,
};
