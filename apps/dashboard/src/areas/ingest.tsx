import { useEffect, useRef, useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { when } from '../format.js';
import { parseSelector, segments } from '../quote.js';
import { BASE, href } from '../router.js';
import type { EdgeRecord, Job, NodeRecord, Page } from '../types.js';
import { BusyButton, ErrorBox, Field, Select, Table, useAction, useLoad, useMounted } from '../ui.js';

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

function Ingest({ ctx }: PageProps) {
  const [title, setTitle] = useState('');
  const [kind, setKind] = useState('article');
  const [content, setContent] = useState('');
  const file = useRef<HTMLInputElement>(null);
  const action = useAction();
  return (
    <>
      <h1>Ingest a document</h1>
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const body: Record<string, unknown> = { content_type: kind, ...(title.trim() ? { title: title.trim() } : {}) };
            const f = file.current?.files?.[0];
            if (f) {
              const ext = f.name.split('.').pop()?.toLowerCase() ?? '';
              const mime = FILE_TYPES[ext] ?? f.type;
              if (!mime) throw new Error(`Cannot tell the type of ${f.name}: use a .pdf, .html, .md, .docx or .txt file.`);
              body.content_base64 = base64(await f.arrayBuffer());
              body.mime_type = mime;
              if (!body.title) body.title = f.name;
            } else body.content = content;
            const r = await ctx.api.post<{ job_id: string | null; document_uid: string; deduplicated: boolean }, '/ingest/document'>('/ingest/document', body);
            if (r.job_id) ctx.navigate(href('jobs', r.job_id));
            else ctx.navigate(`${href('documents', r.document_uid)}?deduplicated=1`);
          });
        }}
      >
        <Field label="Title (optional: the first line otherwise)">
          <input type="text" name="title" maxLength={500} value={title} onChange={(e) => setTitle(e.currentTarget.value)} />
        </Field>
        <Field label="Kind" hint="Meeting notes and reports also extract intents and actions; journals, intents and memories.">
          <Select name="content_type" value={kind} onChange={(e) => setKind(e.currentTarget.value)} options={[['article', 'Article'], ['meeting_notes', 'Meeting notes'], ['report', 'Report'], ['journal', 'Journal']]} />
        </Field>
        <Field label="Paste the text">
          <textarea name="content" rows={12} id="ingest-content" value={content} onChange={(e) => setContent(e.currentTarget.value)} />
        </Field>
        <Field label="…or upload a file" hint="PDF, HTML, Markdown, DOCX or plain text. A file is sent instead of the pasted text.">
          <input type="file" name="file" accept=".pdf,.html,.htm,.md,.markdown,.txt,.docx" ref={file} />
        </Field>
        <ErrorBox error={action.error} />
        <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
          Ingest
        </button>
      </form>
    </>
  );
}

export const ingest: Area = {
  id: 'ingest',
  routes: ['/ingest'],
  nav: { label: 'Ingest a document', path: '/ingest', group: 'Ingestion' },
  title: () => 'Ingest a document',
  Page: Ingest,
};

function Progress({ job }: { job: Job }) {
  const p = job.progress;
  const total = p.total_chunks || 0;
  return (
    <div className="job-progress">
      <p>
        <span className={`status status-${job.status}`} id="job-status">
          {job.status}
        </span>
        {job.queue_position ? ` · position ${job.queue_position} in the queue` : ''}
      </p>
      {total > 0 ? <progress max={total} value={p.processed_chunks} aria-label={`Chunks processed: ${p.processed_chunks} of ${total}`} /> : <progress aria-label="Waiting to start" />}
      <p>{`${p.processed_chunks} of ${total || '?'} chunks · ${p.nodes_created} nodes · ${p.edges_created} edges`}</p>
      {job.error ? <p className="error">{job.error}</p> : null}
    </div>
  );
}

interface DocumentData {
  doc: NodeRecord;
  order: Map<string, number>;
  chunkUids: string[];
  extracted: EdgeRecord[][];
  nodes: Map<string, NodeRecord>;
}

async function loadDocument(ctx: Ctx, documentUid: string): Promise<DocumentData> {
  const doc = await ctx.api.get<NodeRecord>('/node/{uid}', { path: { uid: documentUid } });
  const chunkEdges = await ctx.api.get<EdgeRecord[]>('/edges', { query: { to_uid: documentUid, edge_type: 'ChunkOf' } });
  const order = new Map(chunkEdges.map((e) => [e.from_uid, Number(e.props['chunk_index'] ?? 0)]));
  const chunkUids = [...order.keys()].sort((a, b) => order.get(a)! - order.get(b)!).slice(0, 30);
  const extracted = await Promise.all(chunkUids.map((c) => ctx.api.get<EdgeRecord[]>('/edges', { query: { to_uid: c, edge_type: 'ExtractedFrom' } })));
  const nodeUids = [...new Set(extracted.flat().map((e) => e.from_uid))];
  const batch = await ctx.api.post<{ nodes: NodeRecord[] }, '/nodes/batch'>('/nodes/batch', { uids: [...chunkUids, ...nodeUids].slice(0, 1000) });
  return { doc, order, chunkUids, extracted, nodes: new Map(batch.nodes.map((n) => [n.uid, n])) };
}

/** The document's chunks, each with its extracted quotes highlighted (first 30 chunks). */
function DocumentView({ d }: { d: DocumentData }) {
  const { doc, order, chunkUids, extracted, nodes } = d;
  return (
    <>
      <h2 id="doc-h">
        <a href={href('nodes', doc.uid)}>{doc.label}</a>
        <span className="muted">{` · ${String(doc.props['processing_status'] ?? '')}`}</span>
      </h2>
      {chunkUids.map((c, i) => {
        const chunk = nodes.get(c);
        const edges = extracted[i];
        const quotes = edges
          .map((e) => ({ label: nodes.get(e.from_uid)?.label ?? e.from_uid, selector: parseSelector(e.props['location']) }))
          .filter((q) => q.selector !== null) as { label: string; selector: NonNullable<ReturnType<typeof parseSelector>> }[];
        return (
          <article className="chunk" key={c}>
            <h3>
              <a href={href('nodes', c)}>{`Chunk ${order.get(c)}`}</a>
            </h3>
            <blockquote className="chunk-text">
              {segments(String(chunk?.props['content'] ?? ''), quotes).map((s, j) =>
                s.marks.length ? (
                  <mark key={j} title={`Quoted by: ${s.marks.join(', ')}`}>
                    {s.text}
                  </mark>
                ) : (
                  s.text
                ),
              )}
            </blockquote>
            {edges.length ? (
              <ul className="extracted">
                {edges.map((e) => {
                  const n = nodes.get(e.from_uid);
                  return (
                    <li key={e.uid}>
                      <a href={href('nodes', e.from_uid)} className="node-link">
                        {n?.label ?? e.from_uid}
                      </a>
                      <span className="muted">{` ${n?.node_type ?? ''}`}</span>
                    </li>
                  );
                })}
              </ul>
            ) : (
              <p className="muted">Nothing extracted from this chunk.</p>
            )}
          </article>
        );
      })}
    </>
  );
}

function JobPage({ ctx, params: { id } }: PageProps) {
  const [job, setJob] = useState<Job | null>(null);
  const [doc, setDoc] = useState<DocumentData | null>(null);
  const [error, setError] = useState<unknown>(null);
  const mounted = useMounted();
  useEffect(() => {
    // follows the job until it ends or the person leaves the page
    void (async () => {
      try {
        for (;;) {
          const j = await ctx.api.get<Job>('/jobs/{id}', { path: { id } });
          if (!mounted()) return;
          setJob(j);
          if (FINISHED.has(j.status)) {
            if (j.document_uid) {
              const d = await loadDocument(ctx, j.document_uid);
              if (mounted()) setDoc(d);
            }
            return;
          }
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      } catch (err) {
        if (mounted()) setError(err);
      }
    })();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <>
      <h1 id="job-h">Job</h1>
      <section className="card" aria-live="polite" aria-labelledby="job-h">
        {job ? (
          <>
            <h2>
              {job.title ?? job.kind}
              <span className="muted">{` · ${job.kind} · started ${when(job.created_at)}`}</span>
            </h2>
            <Progress job={job} />
            {FINISHED.has(job.status) ? null : (
              <BusyButton className="danger" onError={setError} action={() => ctx.api.post('/jobs/{id}/cancel', undefined, { path: { id } })}>
                Cancel job
              </BusyButton>
            )}
          </>
        ) : null}
      </section>
      <ErrorBox error={error} />
      <section className="card" aria-labelledby="doc-h">
        {doc ? <DocumentView d={doc} /> : null}
      </section>
    </>
  );
}

export const jobPage: Area = {
  id: 'job',
  routes: ['/jobs/:id'],
  title: () => 'Job',
  Page: JobPage,
};

function DocumentPage({ ctx, params: { uid }, query: q }: PageProps) {
  const { data, error } = useLoad(() => loadDocument(ctx, uid), []);
  return (
    <>
      <h1>Document</h1>
      {q.get('deduplicated') ? (
        <p className="notice" role="status">
          This content was ingested before: here is the existing document.
        </p>
      ) : null}
      <section className="card" aria-labelledby="doc-h">
        {data ? <DocumentView d={data} /> : null}
        <ErrorBox error={error} />
      </section>
    </>
  );
}

export const documentPage: Area = {
  id: 'document',
  routes: ['/documents/:uid'],
  title: () => 'Document',
  Page: DocumentPage,
};

function Jobs({ ctx, query: q }: PageProps) {
  const status = q.get('status') ?? '';
  const { data: page, error } = useLoad(() => ctx.api.get<Page<Job>>('/jobs', { query: { status: q.get('status') ?? undefined, limit: 100 } }), []);
  if (!page) return <ErrorBox error={error} />;
  return (
    <>
      <h1>Jobs</h1>
      <div className="card">
        <Field label="Status">
          <Select name="status" value={status} onChange={(e) => ctx.navigate(`${BASE}/jobs${e.currentTarget.value ? `?status=${e.currentTarget.value}` : ''}`)} options={[['', 'Any status'], 'pending', 'processing', 'completed', 'failed', 'cancelled']} />
        </Field>
        <Table<Job>
          caption="Jobs"
          rowKey={(j) => j.id}
          columns={[
            ['Job', (j) => <a href={href('jobs', j.id)}>{j.title ?? j.id}</a>],
            ['Kind', (j) => j.kind],
            ['Status', (j) => <span className={`status status-${j.status}`}>{j.status}</span>],
            ['Progress', (j) => `${j.progress.processed_chunks}/${j.progress.total_chunks} chunks · ${j.progress.nodes_created} nodes`],
            ['Created', (j) => when(j.created_at)],
          ]}
          items={page.items}
          empty="No jobs."
        />
      </div>
    </>
  );
}

export const jobs: Area = {
  id: 'jobs',
  routes: ['/jobs'],
  nav: { label: 'Jobs', path: '/jobs', group: 'Ingestion' },
  title: () => 'Jobs',
  Page: Jobs,
};
