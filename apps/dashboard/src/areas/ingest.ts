import type { Area, Ctx } from '../context.js';
import { busy, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import { parseSelector, segments } from '../quote.js';
import { BASE, href } from '../router.js';
import type { EdgeRecord, Job, NodeRecord, Page } from '../types.js';

/**
 * Ingestion: paste text or upload a file (PDF, HTML, Markdown, DOCX, text; the server reads
 * it), follow the job live, then read what was extracted: every chunk with the quotes of the
 * nodes extracted from it highlighted.
 */
const FILE_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  html: 'text/html',
  htm: 'text/html',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};
const FINISHED = new Set(['completed', 'failed', 'cancelled']);
const POLL_MS = 600;

function base64(bytes: ArrayBuffer): string {
  const b = new Uint8Array(bytes);
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

export const ingest: Area = {
  id: 'ingest',
  routes: ['/ingest'],
  nav: { label: 'Ingest a document', path: '/ingest', group: 'Ingestion' },
  title: () => 'Ingest a document',
  render(ctx, _p, main) {
    const title = input({ name: 'title', maxlength: 500 });
    const kind = select('content_type', [['article', 'Article'], ['meeting_notes', 'Meeting notes'], ['report', 'Report'], ['journal', 'Journal']], 'article');
    const content = h('textarea', { name: 'content', rows: 12, id: 'ingest-content' });
    const file = input({ type: 'file', name: 'file', accept: '.pdf,.html,.htm,.md,.markdown,.txt,.docx' });
    const go = h('button', { type: 'submit' }, 'Ingest');
    const errors = errorBox();
    const form = h(
      'form',
      { class: 'card' },
      field('Title (optional: the first line otherwise)', title),
      field('Kind', kind, 'Meeting notes and reports also extract intents and actions; journals, intents and memories.'),
      field('Paste the text', content),
      field('…or upload a file', file, 'PDF, HTML, Markdown, DOCX or plain text. A file is sent instead of the pasted text.'),
      errors,
      go,
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void busy(go, errors, async () => {
        const body: Record<string, unknown> = { content_type: kind.value, ...(title.value.trim() ? { title: title.value.trim() } : {}) };
        const f = file.files?.[0];
        if (f) {
          const ext = f.name.split('.').pop()?.toLowerCase() ?? '';
          const mime = FILE_TYPES[ext] ?? f.type;
          if (!mime) throw new Error(`Cannot tell the type of ${f.name}: use a .pdf, .html, .md, .docx or .txt file.`);
          body.content_base64 = base64(await f.arrayBuffer());
          body.mime_type = mime;
          if (!body.title) body.title = f.name;
        } else body.content = content.value;
        const r = await ctx.api.post<{ job_id: string | null; document_uid: string; deduplicated: boolean }, '/ingest/document'>('/ingest/document', body);
        if (r.job_id) ctx.navigate(href('jobs', r.job_id));
        else ctx.navigate(`${href('documents', r.document_uid)}?deduplicated=1`);
      });
    });
    replace(main, h('h1', {}, 'Ingest a document'), form);
  },
};

function progress(job: Job): HTMLElement {
  const p = job.progress;
  const total = p.total_chunks || 0;
  return h(
    'div',
    { class: 'job-progress' },
    h('p', {}, h('span', { class: `status status-${job.status}`, id: 'job-status' }, job.status), job.queue_position ? ` · position ${job.queue_position} in the queue` : ''),
    total > 0 ? h('progress', { max: String(total), value: String(p.processed_chunks), 'aria-label': `Chunks processed: ${p.processed_chunks} of ${total}` }) : h('progress', { 'aria-label': 'Waiting to start' }),
    h('p', {}, `${p.processed_chunks} of ${total || '?'} chunks · ${p.nodes_created} nodes · ${p.edges_created} edges`),
    job.error ? h('p', { class: 'error' }, job.error) : null,
  );
}

/** The document's chunks, each with its extracted quotes highlighted (first 30 chunks). */
async function documentView(ctx: Ctx, documentUid: string, target: HTMLElement): Promise<void> {
  const doc = await ctx.api.get<NodeRecord>('/node/{uid}', { path: { uid: documentUid } });
  const chunkEdges = await ctx.api.get<EdgeRecord[]>('/edges', { query: { to_uid: documentUid, edge_type: 'ChunkOf' } });
  const order = new Map(chunkEdges.map((e) => [e.from_uid, Number(e.props['chunk_index'] ?? 0)]));
  const chunkUids = [...order.keys()].sort((a, b) => order.get(a)! - order.get(b)!).slice(0, 30);
  const extracted = await Promise.all(chunkUids.map((c) => ctx.api.get<EdgeRecord[]>('/edges', { query: { to_uid: c, edge_type: 'ExtractedFrom' } })));
  const nodeUids = [...new Set(extracted.flat().map((e) => e.from_uid))];
  const batch = await ctx.api.post<{ nodes: NodeRecord[] }, '/nodes/batch'>('/nodes/batch', { uids: [...chunkUids, ...nodeUids].slice(0, 1000) });
  const nodes = new Map(batch.nodes.map((n) => [n.uid, n]));
  replace(
    target,
    h('h2', { id: 'doc-h' }, h('a', { href: href('nodes', doc.uid) }, doc.label), h('span', { class: 'muted' }, ` · ${String(doc.props['processing_status'] ?? '')}`)),
    chunkUids.map((c, i) => {
      const chunk = nodes.get(c);
      const edges = extracted[i];
      const quotes = edges.map((e) => ({ label: nodes.get(e.from_uid)?.label ?? e.from_uid, selector: parseSelector(e.props['location']) })).filter((q) => q.selector !== null) as { label: string; selector: NonNullable<ReturnType<typeof parseSelector>> }[];
      return h(
        'article',
        { class: 'chunk' },
        h('h3', {}, h('a', { href: href('nodes', c) }, `Chunk ${order.get(c)}`)),
        h('blockquote', { class: 'chunk-text' }, segments(String(chunk?.props['content'] ?? ''), quotes).map((s) => (s.marks.length ? h('mark', { title: `Quoted by: ${s.marks.join(', ')}` }, s.text) : s.text))),
        edges.length
          ? h('ul', { class: 'extracted' }, edges.map((e) => {
              const n = nodes.get(e.from_uid);
              return h('li', {}, h('a', { href: `${href('nodes', e.from_uid)}`, class: 'node-link' }, n?.label ?? e.from_uid), h('span', { class: 'muted' }, ` ${n?.node_type ?? ''}`));
            }))
          : h('p', { class: 'muted' }, 'Nothing extracted from this chunk.'),
      );
    }),
  );
}

export const jobPage: Area = {
  id: 'job',
  routes: ['/jobs/:id'],
  title: () => 'Job',
  async render(ctx, { id }, main) {
    const box = h('section', { class: 'card', 'aria-live': 'polite', 'aria-labelledby': 'job-h' });
    const doc = h('section', { class: 'card', 'aria-labelledby': 'doc-h' });
    const errors = errorBox();
    const cancel = h('button', { type: 'button', class: 'danger' }, 'Cancel job');
    replace(main, h('h1', { id: 'job-h' }, 'Job'), box, errors, doc);
    cancel.addEventListener('click', () => void busy(cancel, errors, () => ctx.api.post('/jobs/{id}/cancel', undefined, { path: { id } })));
    // follows the job until it ends or the person leaves the page
    for (;;) {
      const job = await ctx.api.get<Job>('/jobs/{id}', { path: { id } });
      if (!box.isConnected) return;
      replace(box, h('h2', {}, job.title ?? job.kind, h('span', { class: 'muted' }, ` · ${job.kind} · started ${when(job.created_at)}`)), progress(job), FINISHED.has(job.status) ? null : cancel);
      if (FINISHED.has(job.status)) {
        if (job.document_uid) await documentView(ctx, job.document_uid, doc);
        return;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  },
};

export const documentPage: Area = {
  id: 'document',
  routes: ['/documents/:uid'],
  title: () => 'Document',
  async render(ctx, { uid }, main, q) {
    const doc = h('section', { class: 'card', 'aria-labelledby': 'doc-h' });
    replace(main, h('h1', {}, 'Document'), q.get('deduplicated') ? h('p', { class: 'notice', role: 'status' }, 'This content was ingested before: here is the existing document.') : null, doc);
    await documentView(ctx, uid, doc);
  },
};

export const jobs: Area = {
  id: 'jobs',
  routes: ['/jobs'],
  nav: { label: 'Jobs', path: '/jobs', group: 'Ingestion' },
  title: () => 'Jobs',
  async render(ctx, _p, main, q) {
    const status = select('status', [['', 'Any status'], 'pending', 'processing', 'completed', 'failed', 'cancelled'], q.get('status') ?? '');
    status.addEventListener('change', () => ctx.navigate(`${BASE}/jobs${status.value ? `?status=${status.value}` : ''}`));
    const page = await ctx.api.get<Page<Job>>('/jobs', { query: { status: q.get('status') ?? undefined, limit: 100 } });
    replace(
      main,
      h('h1', {}, 'Jobs'),
      h('div', { class: 'card' }, field('Status', status),
        table<Job>('Jobs', [
          ['Job', (j) => h('a', { href: href('jobs', j.id) }, j.title ?? j.id)],
          ['Kind', (j) => j.kind],
          ['Status', (j) => h('span', { class: `status status-${j.status}` }, j.status)],
          ['Progress', (j) => `${j.progress.processed_chunks}/${j.progress.total_chunks} chunks · ${j.progress.nodes_created} nodes`],
          ['Created', (j) => when(j.created_at)],
        ], page.items, 'No jobs.')),
    );
  },
};
