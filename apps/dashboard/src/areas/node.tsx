import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api.js';
import type { Area, Ctx, PageProps } from '../context.js';
import { diffRecords } from '../diff.js';
import { when } from '../format.js';
import { graphView, type GEdge, type GNode } from '../graph-view.js';
import { parseSelector, segments } from '../quote.js';
import { BASE, href } from '../router.js';
import type { EdgeRecord, NodeRecord, PathStep, VersionRecord } from '../types.js';
import { ErrorBox, Field, Json, Table, useLoad, useMounted } from '../ui.js';

/**
 * One node: its fields and props, edges (with the other end's label), aliases, embedding
 * state, version history with what each version changed, and the neighborhood drawing that
 * grows on click. A Chunk shows its text with every extracted node's quote highlighted.
 */
function NodeLink({ uid, label }: { uid: string; label: string }) {
  return (
    <a href={href('nodes', uid)} className="node-link">
      {label}
    </a>
  );
}

async function labels(ctx: Ctx, uids: string[]): Promise<Map<string, NodeRecord>> {
  const unique = [...new Set(uids)];
  if (unique.length === 0) return new Map();
  const r = await ctx.api.post<{ nodes: NodeRecord[] }, '/nodes/batch'>('/nodes/batch', { uids: unique.slice(0, 1000) });
  return new Map(r.nodes.map((n) => [n.uid, n]));
}

function Fields({ node }: { node: NodeRecord }) {
  const rows: [string, unknown][] = [
    ['uid', node.uid],
    ['type', node.node_type],
    ['layer', node.layer],
    ['summary', node.summary],
    ['confidence', node.confidence],
    ['salience', node.salience],
    ['classification', node.classification],
    ['privacy', node.privacy_level],
    ['agent', node.agent_id],
    ['version', node.version],
    ['created', when(node.created_at)],
    ['updated', when(node.updated_at)],
    ...(node.tombstone_at ? ([['tombstoned', `${when(node.tombstone_at)} ${node['tombstone_reason'] ?? ''}`]] as [string, unknown][]) : []),
  ];
  const props = Object.entries(node.props ?? {}).filter(([k]) => k !== '_type' && !(node.node_type === 'Chunk' && k === 'content'));
  return (
    <div className="cols">
      <dl className="fields">
        {rows
          .filter(([, v]) => v !== undefined && v !== null && v !== '')
          .map(([k, v]) => [<dt key={`t-${k}`}>{k}</dt>, <dd key={`d-${k}`}>{String(v)}</dd>])}
      </dl>
      <div>
        <h3>Props</h3>
        {props.length === 0 ? (
          <p className="muted">No props.</p>
        ) : (
          <dl className="fields props">{props.map(([k, v]) => [<dt key={`t-${k}`}>{k}</dt>, <dd key={`d-${k}`}>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>])}</dl>
        )}
      </div>
    </div>
  );
}

function EdgesTable({ uid, edges, nodes }: { uid: string; edges: EdgeRecord[]; nodes: Map<string, NodeRecord> }) {
  return (
    <Table<EdgeRecord>
      caption="Edges"
      rowKey={(e) => e.uid}
      columns={[
        ['Direction', (e) => (e.from_uid === uid ? 'outgoing →' : '← incoming')],
        ['Type', (e) => e.edge_type],
        [
          'Other end',
          (e) => {
            const other = e.from_uid === uid ? e.to_uid : e.from_uid;
            const n = nodes.get(other);
            return n ? (
              <>
                <NodeLink uid={other} label={n.label} />
                <span className="muted">{` ${n.node_type}`}</span>
              </>
            ) : (
              other
            );
          },
        ],
        ['Weight', (e) => e.weight.toFixed(2)],
        [
          'Quote',
          (e) => {
            const s = e.edge_type === 'ExtractedFrom' ? parseSelector(e.props['location']) : null;
            return s ? <q>{s.exact}</q> : '';
          },
        ],
      ]}
      items={edges}
      empty="No live edges."
    />
  );
}

function History({ versions }: { versions: VersionRecord[] }) {
  return (
    <ol className="history" reversed>
      {[...versions].reverse().map((v) => {
        const prev = versions.find((p) => p.version === v.version - 1) ?? null;
        const changes = diffRecords(prev?.snapshot ?? null, v.snapshot);
        return (
          <li key={v.version}>
            <details open={v === versions[versions.length - 1]}>
              <summary>{`v${v.version} · ${v.change_type} · ${when(v.changed_at)} · by ${v.changed_by}${v.agent_id ? ` (agent ${v.agent_id})` : ''}${v.change_reason ? ` — ${v.change_reason}` : ''}`}</summary>
              {prev === null ? (
                <p className="muted">First version.</p>
              ) : changes.length === 0 ? (
                <p className="muted">No field changed.</p>
              ) : (
                <table className="diff">
                  <caption className="visually-hidden">{`Changes in version ${v.version}`}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Field</th>
                      <th scope="col">Before</th>
                      <th scope="col">After</th>
                    </tr>
                  </thead>
                  <tbody>
                    {changes.map((c) => (
                      <tr key={c.path} className={`diff-${c.kind}`}>
                        <th scope="row">{c.path}</th>
                        <td className="before">{c.kind === 'added' ? '' : JSON.stringify(c.before)}</td>
                        <td className="after">{c.kind === 'removed' ? '' : JSON.stringify(c.after)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </details>
          </li>
        );
      })}
    </ol>
  );
}

/** The chunk's text with the quote of every node extracted from it marked. */
function ChunkText({ chunk, incoming, nodes, focus }: { chunk: NodeRecord; incoming: EdgeRecord[]; nodes: Map<string, NodeRecord>; focus: string | null }) {
  const text = String(chunk.props['content'] ?? '');
  const quotes = incoming
    .filter((e) => e.edge_type === 'ExtractedFrom')
    .map((e) => ({ uid: e.from_uid, label: nodes.get(e.from_uid)?.label ?? e.from_uid, selector: parseSelector(e.props['location']) }))
    .filter((q): q is { uid: string; label: string; selector: NonNullable<typeof q.selector> } => q.selector !== null);
  const focusLabel = focus ? nodes.get(focus)?.label : null;
  return (
    <blockquote className="chunk-text">
      {segments(text, quotes).map((s, i) =>
        s.marks.length === 0 ? (
          s.text
        ) : (
          <mark key={i} title={`Quoted by: ${s.marks.join(', ')}`} className={focusLabel && s.marks.includes(focusLabel) ? 'focus' : undefined}>
            {s.text}
          </mark>
        ),
      )}
    </blockquote>
  );
}

/** The Cytoscape drawing (graph-view.ts draws it; React gives it its place and its words). */
function Neighborhood({ ctx, node }: { ctx: Ctx; node: NodeRecord }) {
  const place = useRef<HTMLDivElement>(null);
  const [count, setCount] = useState('');
  const [selected, setSelected] = useState<GNode | null>(null);
  const [error, setError] = useState<unknown>(null);
  const mounted = useMounted();
  useEffect(() => {
    const expand = async (uid: string) => {
      try {
        const r = await ctx.api.get<{ steps: PathStep[]; truncated: boolean }>('/neighborhood/{uid}', { path: { uid }, query: { depth: 1, max_nodes: 60 } });
        if (!mounted()) return;
        const nodes: GNode[] = r.steps.map((s) => ({ uid: s.node_uid, label: s.label, node_type: s.node_type, layer: s.layer }));
        const edges: GEdge[] = r.steps
          .filter((s) => s.edge_uid && s.parent_uid)
          .map((s) => (s.direction === 'incoming' ? { uid: s.edge_uid!, from: s.node_uid, to: s.parent_uid!, edge_type: s.edge_type! } : { uid: s.edge_uid!, from: s.parent_uid!, to: s.node_uid, edge_type: s.edge_type! }));
        view.add(nodes, edges);
        const size = view.size();
        setCount(`${size.nodes} nodes, ${size.edges} edges${r.truncated ? ' (truncated)' : ''}`);
      } catch (err) {
        if (mounted()) setError(err);
      }
    };
    const view = graphView({ start: node.uid, onExpand: expand, onSelect: setSelected });
    place.current!.replaceChildren(view.el);
    view.add([{ uid: node.uid, label: node.label, node_type: node.node_type, layer: node.layer }], []);
    void expand(node.uid);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <section className="card" aria-labelledby="nb-h">
      <h2 id="nb-h">
        {'Neighborhood '}
        <span className="muted" id="graph-count">
          {count}
        </span>
      </h2>
      <div ref={place} />
      <p className="muted" aria-live="polite">
        {selected ? (
          <>
            {'Selected: '}
            <NodeLink uid={selected.uid} label={selected.label} />
            {` (${selected.node_type}, ${selected.layer})`}
          </>
        ) : (
          'Activate a node to expand its neighbors.'
        )}
      </p>
      <ErrorBox error={error} />
    </section>
  );
}

function PathForm({ ctx, from }: { ctx: Ctx; from: NodeRecord }) {
  const [to, setTo] = useState('');
  return (
    <form
      className="inline-form"
      aria-label="Path to another node"
      onSubmit={(e) => {
        e.preventDefault();
        ctx.navigate(`${BASE}/paths?from=${encodeURIComponent(from.uid)}&to=${encodeURIComponent(to.trim())}`);
      }}
    >
      <Field label="Path to (node uid)">
        <input type="text" name="to" required placeholder="uid of another node" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
      </Field>
      <button type="submit">Find path</button>
    </form>
  );
}

function NodePage({ ctx, params: { uid }, query: q }: PageProps) {
  const { data, error } = useLoad(async () => {
    const node = await ctx.api.get<NodeRecord>('/node/{uid}', { path: { uid } });
    document.title = `${node.label} · Strata`;
    const [outgoing, incoming, aliases, versions, embedding] = await Promise.all([
      ctx.api.get<EdgeRecord[]>('/edges', { query: { from_uid: uid } }),
      ctx.api.get<EdgeRecord[]>('/edges', { query: { to_uid: uid } }),
      ctx.api.get<{ text: string; score: number }[]>('/aliases/{uid}', { path: { uid } }).catch(() => []),
      ctx.api.get<VersionRecord[]>('/node/{uid}/history', { path: { uid } }),
      ctx.api.get<{ dimension: number; model: string | null }>('/node/{uid}/embedding', { path: { uid } }).then(
        (e) => `embedded: ${e.dimension} dimensions${e.model ? `, model ${e.model}` : ''}`,
        (err) => (err instanceof ApiError && err.status === 404 ? 'no vector yet' : err instanceof ApiError && err.status === 501 ? 'embeddings are not configured' : `unknown (${err.message})`),
      ),
    ]);
    const edges = [...outgoing, ...incoming.filter((e) => e.from_uid !== e.to_uid)];
    const ends = await labels(ctx, edges.map((e) => (e.from_uid === uid ? e.to_uid : e.from_uid)));
    return { node, outgoing, incoming, aliases, versions, embedding, edges, ends };
  }, []);
  if (!data)
    return error ? (
      <ErrorBox error={error} />
    ) : (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  const { node, outgoing, incoming, aliases, versions, embedding, edges, ends } = data;
  // where this node was quoted from: its ExtractedFrom edges lead to the chunks
  const sources = outgoing.filter((e) => e.edge_type === 'ExtractedFrom');
  return (
    <>
      <p className="crumbs">
        <a href={`${BASE}/explore`}>Search</a>
        {` / ${node.node_type}`}
      </p>
      <h1>
        {node.label}
        {node.tombstone_at ? <span className="pill danger">tombstoned</span> : null}
      </h1>
      <section className="card" aria-labelledby="fields-h">
        <h2 id="fields-h" className="visually-hidden">
          Fields
        </h2>
        <Fields node={node} />
        <p>
          <strong>Embedding: </strong>
          <span id="embedding-state">{embedding}</span>
        </p>
        <p>
          <strong>Aliases: </strong>
          {aliases.length ? aliases.map((a) => `${a.text} (${a.score})`).join(', ') : 'none'}
        </p>
      </section>
      {node.node_type === 'Chunk' ? (
        <section className="card" aria-labelledby="text-h">
          <h2 id="text-h">Text, with extracted quotes</h2>
          <ChunkText chunk={node} incoming={incoming} nodes={ends} focus={q.get('highlight')} />
        </section>
      ) : null}
      {sources.length ? (
        <section className="card" aria-labelledby="src-h">
          <h2 id="src-h">Sources</h2>
          <ul>
            {sources.map((e) => {
              const s = parseSelector(e.props['location']);
              return (
                <li key={e.uid}>
                  {s ? <q>{s.exact}</q> : 'unanchored'}
                  {' in '}
                  <a href={`${href('nodes', e.to_uid)}?highlight=${encodeURIComponent(uid)}`}>{ends.get(e.to_uid)?.label ?? e.to_uid}</a>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
      <section className="card" aria-labelledby="edges-h">
        <h2 id="edges-h">{`Edges (${edges.length})`}</h2>
        <EdgesTable uid={uid} edges={edges} nodes={ends} />
        <PathForm ctx={ctx} from={node} />
      </section>
      <Neighborhood ctx={ctx} node={node} />
      <section className="card" aria-labelledby="hist-h">
        <h2 id="hist-h">{`History (${versions.length} version${versions.length === 1 ? '' : 's'})`}</h2>
        <History versions={versions} />
      </section>
      <details className="card">
        <summary>Raw record</summary>
        <Json value={node} />
      </details>
    </>
  );
}

export const nodePage: Area = {
  id: 'node',
  routes: ['/nodes/:uid'],
  title: (p) => `Node ${p.uid}`,
  Page: NodePage,
};

type PathAnswer = { found: boolean; hops: number | null; path_cost: number | null; steps: PathStep[] };

function Paths({ ctx, query: q }: PageProps) {
  const [from, setFrom] = useState(q.get('from') ?? '');
  const [to, setTo] = useState(q.get('to') ?? '');
  const [depth, setDepth] = useState(q.get('max_depth') ?? '5');
  const asked = Boolean(q.get('from') && q.get('to'));
  const [answer, setAnswer] = useState<PathAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const mounted = useMounted();
  useEffect(() => {
    if (!asked) return;
    ctx.api.get<PathAnswer>('/path', { query: { from: q.get('from')!, to: q.get('to')!, max_depth: q.get('max_depth') ?? undefined } }).then(
      (r) => mounted() && setAnswer(r),
      (err) => mounted() && setError(err),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const busy = asked && !answer && !error;
  return (
    <>
      <h1>Paths between nodes</h1>
      <form
        className="card search"
        onSubmit={(e) => {
          e.preventDefault();
          ctx.navigate(`${BASE}/paths?${new URLSearchParams({ from: from.trim(), to: to.trim(), max_depth: depth })}`);
        }}
      >
        <Field label="From (node uid)">
          <input type="text" name="from" required value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </Field>
        <Field label="To (node uid)">
          <input type="text" name="to" required value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </Field>
        <Field label="Max hops">
          <input type="number" name="max_depth" min={1} max={16} value={depth} onChange={(e) => setDepth(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={busy} aria-busy={busy || undefined}>
          Find path
        </button>
      </form>
      <ErrorBox error={error} />
      <section aria-live="polite">
        {!answer ? null : !answer.found ? (
          <p className="card">No path within that many hops.</p>
        ) : (
          <div className="card">
            <h2>{`${answer.hops} hop${answer.hops === 1 ? '' : 's'} (cost ${answer.path_cost?.toFixed(3)})`}</h2>
            <ol className="path">
              {answer.steps.map((s, i) => (
                <li key={i}>
                  {s.edge_type ? <span className="muted">{`${s.direction === 'incoming' ? '←' : '→'} ${s.edge_type} ${s.direction === 'incoming' ? '—' : '→'} `}</span> : null}
                  <NodeLink uid={s.node_uid} label={s.label} />
                  <span className="muted">{` ${s.node_type}`}</span>
                </li>
              ))}
            </ol>
          </div>
        )}
      </section>
    </>
  );
}

export const paths: Area = {
  id: 'paths',
  routes: ['/paths'],
  nav: { label: 'Paths', path: '/paths', group: 'Graph' },
  title: () => 'Paths between nodes',
  Page: Paths,
};
