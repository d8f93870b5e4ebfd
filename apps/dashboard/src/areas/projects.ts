import type { Area, Ctx } from '../context.js';
import { busy, errorBox, field, h, input, replace, select, table, when, type Child } from '../dom.js';
import { segments } from '../quote.js';
import { BASE, href } from '../router.js';
import type { Job, NodeRecord, Page, Role } from '../types.js';

/**
 * Projects and their living briefs: findings, tensions and open questions, each citation
 * opening the passage it quotes; pin, unpin and correct; regenerate (an LLM regeneration is a
 * job, followed until it ends); the version history with its material changes.
 */
interface Citation {
  chunk_uid: string;
  document_uid: string;
  document_title: string;
  chunk_index: number;
  node_uid: string | null;
  char_start: number | null;
  char_end: number | null;
  quote: string | null;
  page_start: number | null;
  page_end: number | null;
}
type Kind = 'finding' | 'tension' | 'open_question';
interface BriefItem {
  id: string;
  kind: Kind;
  rank: number;
  text: string;
  generated_text: string;
  citations: Citation[];
  confidence: number | null;
  origin: string;
  pinned: boolean;
  correction: { text: string; by: string; at: number; reason: string | null } | null;
  stale: boolean;
  first_version: number;
}
interface Change {
  type: string;
  item_id: string;
  kind: Kind;
  material: boolean;
  before: { text: string } | null;
  after: { text: string } | null;
}
interface BriefVersion {
  project_uid: string;
  version: number;
  created_at: number;
  trigger: string;
  requested_by: string;
  generated_by: string;
  model: string | null;
  source_counts: { documents: number; chunks: number; nodes: number; edges: number };
  summary: string | null;
  items: BriefItem[];
  changes: Change[];
  material_change_count: number;
  previous_version: number | null;
}
interface BriefState {
  project_uid: string;
  status: 'none' | 'current' | 'stale';
  current_version: number | null;
  regeneration: { job_id: string; status: string; requested_at: number } | null;
  last_error: { code: string; message: string; at: number } | null;
  withheld_items: number;
  brief: BriefVersion | null;
}
interface HistoryEntry {
  version: number;
  created_at: number;
  trigger: string;
  generated_by: string;
  item_counts: Record<Kind, number>;
  material_change_count: number;
  material_changes: Change[];
}

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

export const projects: Area = {
  id: 'projects',
  routes: ['/projects'],
  nav: { label: 'Projects', path: '/projects', group: 'Projects' },
  title: () => 'Projects',
  async render(ctx, _p, main, q) {
    const filter = input({ type: 'search', name: 'label_contains', value: q.get('q') ?? '' });
    const go = h('button', { type: 'submit' }, 'Filter');
    const form = h('form', { class: 'inline-form card', role: 'search' }, field('Label contains', filter), go);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      ctx.navigate(`${BASE}/projects${filter.value.trim() ? `?q=${encodeURIComponent(filter.value.trim())}` : ''}`);
    });
    const page = await ctx.api.get<Page<NodeRecord>>('/nodes', { query: { type: 'Project', label_contains: q.get('q') ?? undefined, limit: 100 } });
    replace(
      main,
      h('h1', {}, 'Projects'),
      form,
      h('section', { class: 'card', 'aria-labelledby': 'projects-h' }, h('h2', { id: 'projects-h' }, `Projects (${page.items.length}${page.has_more ? '+' : ''})`),
        table<NodeRecord>('Projects', [
          ['Project', (p) => h('a', { href: href('projects', p.uid) }, p.label)],
          ['Summary', (p) => p.summary ?? ''],
          ['Created', (p) => when(p.created_at)],
        ], page.items, 'No Projects yet: a Project is a node of type Project; documents join it through PartOfProject edges.')),
    );
  },
};

/** The cited passage: the chunk's text with the quoted bytes marked. */
async function openPassage(ctx: Ctx, c: Citation, target: HTMLElement): Promise<void> {
  const chunk = await ctx.api.get<NodeRecord>('/node/{uid}', { path: { uid: c.chunk_uid } });
  const text = String(chunk.props['content'] ?? '');
  const marked = c.quote ? segments(text, [{ label: 'cited', selector: { exact: c.quote, start: c.char_start ?? undefined, end: c.char_end ?? undefined } }]) : [{ text, marks: [] }];
  replace(
    target,
    h('h3', { id: 'passage-h' }, `${c.document_title} · chunk ${c.chunk_index}${c.page_start ? ` · page ${c.page_start}${c.page_end && c.page_end !== c.page_start ? `–${c.page_end}` : ''}` : ''}`),
    h('blockquote', { class: 'chunk-text passage' }, marked.map((s) => (s.marks.length ? h('mark', { class: 'focus' }, s.text) : s.text))),
    h('p', {}, h('a', { href: href('nodes', c.chunk_uid) }, 'Open the chunk'), ' · ', h('a', { href: href('documents', c.document_uid) }, 'Open the document'), c.node_uid ? [' · ', h('a', { href: href('nodes', c.node_uid) }, 'Open the cited node')] : null),
  );
  target.hidden = false;
  target.querySelector<HTMLElement>('blockquote mark')?.scrollIntoView({ block: 'nearest' });
}

function citationLabel(c: Citation): string {
  return `${c.document_title} §${c.chunk_index}${c.quote ? `: “${c.quote.length > 80 ? c.quote.slice(0, 79) + '…' : c.quote}”` : ' (unanchored)'}`;
}

interface ItemHooks {
  ctx: Ctx;
  projectUid: string;
  current: BriefVersion;
  passage: HTMLElement;
  errors: ReturnType<typeof errorBox>;
  reload(): Promise<void>;
  /** null for an old version: read-only */
  editable: boolean;
}

function itemView(item: BriefItem, hooks: ItemHooks): HTMLElement {
  const { ctx, projectUid, current } = hooks;
  const role = projectRole(ctx.role);
  const patch = (body: { action: 'pin' | 'unpin' | 'correct'; text?: string; citations?: { chunk_uid: string; quote: string }[]; reason?: string }) =>
    ctx.api.call('patch', '/projects/{project_uid}/brief/items/{item_id}', { path: { project_uid: projectUid, item_id: item.id }, body: { ...body, expected_version: current.version } });
  const controls: Child[] = [];
  if (hooks.editable && role !== 'viewer') {
    const pin = h('button', { type: 'button', class: 'small', 'aria-label': `${item.pinned ? 'Unpin' : 'Pin'} “${item.text.slice(0, 60)}”` }, item.pinned ? 'Unpin' : 'Pin');
    pin.addEventListener('click', () => void busy(pin, hooks.errors, async () => {
      await patch({ action: item.pinned ? 'unpin' : 'pin' });
      await hooks.reload();
    }));
    controls.push(pin);
    const text = h('textarea', { name: 'text', rows: 3, required: true }, item.text) as HTMLTextAreaElement;
    const chunks = [...new Map(item.citations.map((c) => [c.chunk_uid, c])).values()];
    const chunk = chunks.length
      ? select('chunk_uid', chunks.map((c) => [c.chunk_uid, `${c.document_title} §${c.chunk_index}`] as [string, string]), chunks[0].chunk_uid)
      : input({ name: 'chunk_uid', required: true, placeholder: 'uid of a chunk of this Project' });
    const quote = input({ name: 'quote', required: true, value: item.citations.find((c) => c.quote)?.quote ?? '' });
    const reason = input({ name: 'reason', maxlength: 500 });
    const save = h('button', { type: 'submit' }, 'Save correction');
    const form = h('form', { class: 'correct-form' }, field('Corrected text', text), field('Cited chunk', chunk), field('Quote (exactly as in the chunk)', quote), field('Reason (optional)', reason), save);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void busy(save, hooks.errors, async () => {
        await patch({ action: 'correct', text: text.value, citations: [{ chunk_uid: chunk.value.trim(), quote: quote.value }], ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) });
        await hooks.reload();
      });
    });
    controls.push(h('details', { class: 'correct' }, h('summary', {}, 'Correct'), form));
  }
  return h(
    'li',
    { class: 'brief-item', 'data-id': item.id },
    h('p', { class: 'item-text' }, item.text,
      item.pinned ? h('span', { class: 'pill' }, 'pinned') : null,
      item.correction ? h('span', { class: 'pill', title: `Corrected by ${item.correction.by} ${when(item.correction.at)}${item.correction.reason ? `: ${item.correction.reason}` : ''}` }, 'corrected') : null,
      item.stale ? h('span', { class: 'pill danger' }, 'stale') : null),
    h('p', { class: 'muted small-print' }, `#${item.rank} · ${item.origin}${item.confidence !== null ? ` · confidence ${item.confidence.toFixed(2)}` : ''} · since v${item.first_version}${item.correction ? ` · generated: “${item.generated_text}”` : ''}`),
    item.citations.length
      ? h('ul', { class: 'citations', 'aria-label': 'Citations' }, item.citations.map((c) => {
          const b = h('button', { type: 'button', class: 'link-button citation' }, citationLabel(c));
          b.addEventListener('click', () => void busy(b, hooks.errors, () => openPassage(ctx, c, hooks.passage)));
          return h('li', {}, b);
        }))
      : h('p', { class: 'muted' }, 'No citation.'),
    controls.length ? h('div', { class: 'item-actions' }, controls) : null,
  );
}

function briefView(v: BriefVersion, hooks: ItemHooks): HTMLElement[] {
  return KINDS.map(([kind, title]) => {
    const items = v.items.filter((i) => i.kind === kind).sort((a, b) => a.rank - b.rank);
    return h('section', { class: 'card', 'aria-labelledby': `kind-${kind}` }, h('h2', { id: `kind-${kind}` }, `${title} (${items.length})`),
      items.length ? h('ol', { class: 'brief-items' }, items.map((i) => itemView(i, hooks))) : h('p', { class: 'empty' }, 'None in this version.'));
  });
}

function changeList(changes: Change[]): HTMLElement {
  if (changes.length === 0) return h('p', { class: 'muted' }, 'No material change.');
  return h('ul', { class: 'changes' }, changes.map((c) => h('li', { class: `change change-${c.type}` },
    h('strong', {}, c.type.replace('_', ' ')), ` ${c.kind.replace('_', ' ')}: `,
    c.before && c.after && c.before.text !== c.after.text ? [h('del', {}, c.before.text), ' → ', h('ins', {}, c.after.text)] : (c.after ?? c.before)?.text ?? c.item_id)));
}

/** Follows an LLM regeneration job until it ends, showing its state. */
async function follow(ctx: Ctx, jobId: string, box: HTMLElement): Promise<Job | null> {
  for (;;) {
    const job = await ctx.api.get<Job>('/jobs/{id}', { path: { id: jobId } });
    if (!box.isConnected) return null;
    replace(box, h('p', {}, 'Regenerating: ', h('span', { class: `status status-${job.status}`, id: 'regen-status' }, job.status)), h('progress', { 'aria-label': 'Regeneration in progress' }));
    if (['completed', 'failed', 'cancelled'].includes(job.status)) {
      replace(box, job.status === 'completed' ? null : h('p', { class: 'error', role: 'alert' }, job.error ?? `The regeneration ${job.status}.`));
      return job;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export const projectPage: Area = {
  id: 'project',
  routes: ['/projects/:uid'],
  title: () => 'Project',
  async render(ctx, { uid }, main, q): Promise<void> {
    replace(main, h('p', { class: 'muted', role: 'status' }, 'Loading…'));
    const [project, state, history] = await Promise.all([
      ctx.api.get<NodeRecord>('/node/{uid}', { path: { uid } }),
      ctx.api.get<BriefState>('/projects/{project_uid}/brief', { path: { project_uid: uid } }),
      ctx.api.get<Page<HistoryEntry>>('/projects/{project_uid}/brief/history', { path: { project_uid: uid }, query: { limit: 100 } }),
    ]);
    document.title = `${project.label} · Strata`;
    const role = projectRole(ctx.role);
    const asked = q.get('version') ? Number(q.get('version')) : null;
    const shown = asked && asked !== state.current_version
      ? await ctx.api.get<BriefVersion>('/projects/{project_uid}/brief/history/{version}', { path: { project_uid: uid, version: asked } })
      : state.brief;
    const errors = errorBox();
    const progressBox = h('div', { class: 'regen-progress', 'aria-live': 'polite' });
    const passage = h('section', { class: 'card passage-box', hidden: true, 'aria-live': 'polite', 'aria-label': 'Cited passage' });
    const reload = async () => projectPage.render!(ctx, { uid }, main, new URLSearchParams(asked ? `version=${asked}` : ''));

    let regen: HTMLElement | null = null;
    if (role !== 'viewer') {
      const mode = select('mode', ['auto', 'structural', 'llm'], 'auto');
      const force = h('input', { type: 'checkbox', name: 'force' });
      const go = h('button', { type: 'submit' }, 'Regenerate');
      regen = h('form', { class: 'inline-form', 'aria-label': 'Regenerate the brief' }, field('Generator', mode), h('label', { class: 'check' }, force, ' even if nothing changed'), go);
      regen.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(go, errors, async () => {
          replace(progressBox, h('p', {}, 'Regenerating…'), h('progress', { 'aria-label': 'Regeneration in progress' }));
          try {
            const r = await ctx.api.post<{ reused: boolean; job_id?: string; version?: BriefVersion }, '/projects/{project_uid}/brief/regenerate'>(
              '/projects/{project_uid}/brief/regenerate', { mode: mode.value as 'auto' | 'structural' | 'llm', force: force.checked }, { path: { project_uid: uid } });
            if (r.job_id) {
              const job = await follow(ctx, r.job_id, progressBox);
              if (job?.status !== 'completed') return;
            }
            await projectPage.render!(ctx, { uid }, main, new URLSearchParams());
            if (r.reused) main.querySelector('.regen-progress')?.replaceChildren(h('p', { role: 'status' }, 'Nothing changed since the current version: it was kept.'));
          } catch (err) {
            replace(progressBox);
            throw err;
          }
        });
      });
    }

    const hooks: ItemHooks | null = shown ? { ctx, projectUid: uid, current: shown, passage, errors, reload, editable: shown.version === state.current_version } : null;
    replace(
      main,
      h('p', { class: 'crumbs' }, h('a', { href: `${BASE}/projects` }, 'Projects'), ' / ', h('a', { href: href('nodes', uid) }, 'node'), ' · ', h('a', { href: `${BASE}/briefings/schedules?project_uid=${encodeURIComponent(uid)}` }, 'Briefing schedules')),
      h('h1', {}, project.label),
      h('section', { class: 'card', 'aria-labelledby': 'state-h' },
        h('h2', { id: 'state-h' }, 'Living brief ', h('span', { class: `pill status-${state.status}`, id: 'brief-status' }, state.status)),
        state.brief
          ? h('p', {}, `Version ${state.brief.version} · ${state.brief.trigger} · ${state.brief.generated_by}${state.brief.model ? ` (${state.brief.model})` : ''} · ${when(state.brief.created_at)} · from ${state.brief.source_counts.documents} documents, ${state.brief.source_counts.chunks} chunks, ${state.brief.source_counts.nodes} nodes, ${state.brief.source_counts.edges} edges`)
          : h('p', { class: 'muted' }, 'No brief yet.'),
        state.status === 'stale' ? h('p', { class: 'muted' }, 'Its sources changed since this version.') : null,
        state.withheld_items ? h('p', { class: 'muted' }, `${state.withheld_items} item(s) withheld: they rest on nodes you cannot see.`) : null,
        state.last_error ? h('p', { class: 'error' }, `Last regeneration failed (${when(state.last_error.at)}): ${state.last_error.message}`) : null,
        shown?.summary ? h('p', { class: 'summary' }, shown.summary) : null,
        regen ?? h('p', { class: 'muted' }, 'Viewers read the brief; members, admins and owners regenerate, pin and correct it.'),
        progressBox,
        errors),
      shown && shown.version !== state.current_version
        ? h('p', { class: 'notice', role: 'status' }, `Showing version ${shown.version} (read-only). `, h('a', { href: href('projects', uid) }, 'Back to the current version'))
        : null,
      shown && hooks ? briefView(shown, hooks) : null,
      passage,
      h('section', { class: 'card', 'aria-labelledby': 'versions-h' }, h('h2', { id: 'versions-h' }, `Versions (${history.items.length})`),
        history.items.length === 0 ? h('p', { class: 'empty' }, 'No version yet.') : h('ol', { class: 'versions', reversed: true }, history.items.map((v) => h('li', { 'data-version': v.version },
          h('details', { open: v.version === history.items[0]?.version },
            h('summary', {}, `v${v.version} · ${v.trigger} · ${v.generated_by} · ${when(v.created_at)} · ${v.item_counts.finding} findings, ${v.item_counts.tension} tensions, ${v.item_counts.open_question} open questions · ${v.material_change_count} material change${v.material_change_count === 1 ? '' : 's'}`),
            changeList(v.material_changes)),
          h('a', { href: `${href('projects', uid)}?version=${v.version}` }, `Open version ${v.version}`))))),
    );
    if (state.regeneration && role !== 'viewer') {
      const job = await follow(ctx, state.regeneration.job_id, progressBox);
      if (job?.status === 'completed') await reload();
    }
  },
};
