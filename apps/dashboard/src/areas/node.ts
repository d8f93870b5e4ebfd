import { ApiError } from '../api.js';
import type { Area, Ctx } from '../context.js';
import { diffRecords } from '../diff.js';
import { busy, errorBox, field, h, input, json, replace, table, when } from '../dom.js';
import { graphView, type GEdge, type GNode } from '../graph-view.js';
import { parseSelector, segments } from '../quote.js';
import { BASE, href } from '../router.js';
import type { EdgeRecord, NodeRecord, PathStep, VersionRecord } from '../types.js';

/**
 * One node: its fields and props, edges (with the other end's label), aliases, embedding
 * state, version history with what each version changed, and the neighborhood drawing that
 * grows on click. A Chunk shows its text with every extracted node's quote highlighted.
 */
const nodeLink = (uid: string, label: string) => h('a', { href: href('nodes', uid), class: 'node-link' }, label);

async function labels(ctx: Ctx, uids: string[]): Promise<Map<string, NodeRecord>> {
  const unique = [...new Set(uids)];
  if (unique.length === 0) return new Map();
  const r = await ctx.api.post<{ nodes: NodeRecord[] }, '/nodes/batch'>('/nodes/batch', { uids: unique.slice(0, 1000) });
  return new Map(r.nodes.map((n) => [n.uid, n]));
}

function fields(node: NodeRecord): HTMLElement {
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
  return h(
    'div',
    { class: 'cols' },
    h('dl', { class: 'fields' }, rows.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))])),
    h(
      'div',
      {},
      h('h3', {}, 'Props'),
      props.length === 0 ? h('p', { class: 'muted' }, 'No props.') : h('dl', { class: 'fields props' }, props.map(([k, v]) => [h('dt', {}, k), h('dd', {}, typeof v === 'string' ? v : JSON.stringify(v))])),
    ),
  );
}

function edgesTable(uid: string, edges: EdgeRecord[], nodes: Map<string, NodeRecord>): HTMLElement {
  return table<EdgeRecord>('Edges', [
    ['Direction', (e) => (e.from_uid === uid ? 'outgoing →' : '← incoming')],
    ['Type', (e) => e.edge_type],
    ['Other end', (e) => {
      const other = e.from_uid === uid ? e.to_uid : e.from_uid;
      const n = nodes.get(other);
      return n ? [nodeLink(other, n.label), h('span', { class: 'muted' }, ` ${n.node_type}`)] : other;
    }],
    ['Weight', (e) => e.weight.toFixed(2)],
    ['Quote', (e) => {
      const s = e.edge_type === 'ExtractedFrom' ? parseSelector(e.props['location']) : null;
      return s ? h('q', {}, s.exact) : '';
    }],
  ], edges, 'No live edges.');
}

function history(versions: VersionRecord[]): HTMLElement {
  return h(
    'ol',
    { class: 'history', reversed: true },
    [...versions].reverse().map((v) => {
      const prev = versions.find((p) => p.version === v.version - 1) ?? null;
      const changes = diffRecords(prev?.snapshot ?? null, v.snapshot);
      return h(
        'li',
        {},
        h('details', { open: v === versions[versions.length - 1] },
          h('summary', {}, `v${v.version} · ${v.change_type} · ${when(v.changed_at)} · by ${v.changed_by}${v.agent_id ? ` (agent ${v.agent_id})` : ''}${v.change_reason ? ` — ${v.change_reason}` : ''}`),
          prev === null
            ? h('p', { class: 'muted' }, 'First version.')
            : changes.length === 0
              ? h('p', { class: 'muted' }, 'No field changed.')
              : h('table', { class: 'diff' },
                  h('caption', { class: 'visually-hidden' }, `Changes in version ${v.version}`),
                  h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Before'), h('th', { scope: 'col' }, 'After'))),
                  h('tbody', {}, changes.map((c) => h('tr', { class: `diff-${c.kind}` }, h('th', { scope: 'row' }, c.path), h('td', { class: 'before' }, c.kind === 'added' ? '' : JSON.stringify(c.before)), h('td', { class: 'after' }, c.kind === 'removed' ? '' : JSON.stringify(c.after)))))),
        ),
      );
    }),
  );
}

/** The chunk's text with the quote of every node extracted from it marked. */
function chunkText(chunk: NodeRecord, incoming: EdgeRecord[], nodes: Map<string, NodeRecord>, focus: string | null): HTMLElement {
  const text = String(chunk.props['content'] ?? '');
  const quotes = incoming
    .filter((e) => e.edge_type === 'ExtractedFrom')
    .map((e) => ({ uid: e.from_uid, label: nodes.get(e.from_uid)?.label ?? e.from_uid, selector: parseSelector(e.props['location']) }))
    .filter((q): q is { uid: string; label: string; selector: NonNullable<typeof q.selector> } => q.selector !== null);
  const focusLabel = focus ? nodes.get(focus)?.label : null;
  return h(
    'blockquote',
    { class: 'chunk-text' },
    segments(text, quotes).map((s) =>
      s.marks.length === 0 ? s.text : h('mark', { title: `Quoted by: ${s.marks.join(', ')}`, class: focusLabel && s.marks.includes(focusLabel) ? 'focus' : null }, s.text),
    ),
  );
}

async function neighborhood(ctx: Ctx, node: NodeRecord, target: HTMLElement): Promise<void> {
  const selected = h('p', { class: 'muted', 'aria-live': 'polite' }, 'Activate a node to expand its neighbors.');
  const errors = errorBox();
  const expand = async (uid: string) => {
    try {
      const r = await ctx.api.get<{ steps: PathStep[]; truncated: boolean }>('/neighborhood/{uid}', { path: { uid }, query: { depth: 1, max_nodes: 60 } });
      const nodes: GNode[] = r.steps.map((s) => ({ uid: s.node_uid, label: s.label, node_type: s.node_type, layer: s.layer }));
      const edges: GEdge[] = r.steps
        .filter((s) => s.edge_uid && s.parent_uid)
        .map((s) => (s.direction === 'incoming' ? { uid: s.edge_uid!, from: s.node_uid, to: s.parent_uid!, edge_type: s.edge_type! } : { uid: s.edge_uid!, from: s.parent_uid!, to: s.node_uid, edge_type: s.edge_type! }));
      view.add(nodes, edges);
      const size = view.size();
      count.textContent = `${size.nodes} nodes, ${size.edges} edges${r.truncated ? ' (truncated)' : ''}`;
    } catch (err) {
      errors.show(err);
    }
  };
  const view = graphView({
    start: node.uid,
    onExpand: expand,
    onSelect: (n) => replace(selected, 'Selected: ', nodeLink(n.uid, n.label), ` (${n.node_type}, ${n.layer})`),
  });
  const count = h('span', { class: 'muted', id: 'graph-count' });
  replace(target, h('h2', { id: 'nb-h' }, 'Neighborhood ', count), view.el, selected, errors);
  view.add([{ uid: node.uid, label: node.label, node_type: node.node_type, layer: node.layer }], []);
  await expand(node.uid);
}

function pathForm(ctx: Ctx, from: NodeRecord): HTMLElement {
  const to = input({ name: 'to', required: true, placeholder: 'uid of another node' });
  const go = h('button', { type: 'submit' }, 'Find path');
  const f = h('form', { class: 'inline-form', 'aria-label': 'Path to another node' }, field('Path to (node uid)', to), go);
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.navigate(`${BASE}/paths?from=${encodeURIComponent(from.uid)}&to=${encodeURIComponent(to.value.trim())}`);
  });
  return f;
}

export const nodePage: Area = {
  id: 'node',
  routes: ['/nodes/:uid'],
  title: (p) => `Node ${p.uid}`,
  async render(ctx, { uid }, main, q) {
    replace(main, h('p', { class: 'muted', role: 'status' }, 'Loading…'));
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
    const nb = h('section', { class: 'card', 'aria-labelledby': 'nb-h' });
    // where this node was quoted from: its ExtractedFrom edges lead to the chunks
    const sources = outgoing.filter((e) => e.edge_type === 'ExtractedFrom');
    replace(
      main,
      h('p', { class: 'crumbs' }, h('a', { href: `${BASE}/explore` }, 'Search'), ' / ', node.node_type),
      h('h1', {}, node.label, node.tombstone_at ? h('span', { class: 'pill danger' }, 'tombstoned') : null),
      h('section', { class: 'card', 'aria-labelledby': 'fields-h' }, h('h2', { id: 'fields-h', class: 'visually-hidden' }, 'Fields'), fields(node),
        h('p', {}, h('strong', {}, 'Embedding: '), h('span', { id: 'embedding-state' }, embedding)),
        h('p', {}, h('strong', {}, 'Aliases: '), aliases.length ? aliases.map((a) => `${a.text} (${a.score})`).join(', ') : 'none')),
      node.node_type === 'Chunk' ? h('section', { class: 'card', 'aria-labelledby': 'text-h' }, h('h2', { id: 'text-h' }, 'Text, with extracted quotes'), chunkText(node, incoming, ends, q.get('highlight'))) : null,
      sources.length
        ? h('section', { class: 'card', 'aria-labelledby': 'src-h' }, h('h2', { id: 'src-h' }, 'Sources'),
            h('ul', {}, sources.map((e) => h('li', {}, parseSelector(e.props['location']) ? h('q', {}, parseSelector(e.props['location'])!.exact) : 'unanchored', ' in ', h('a', { href: `${href('nodes', e.to_uid)}?highlight=${encodeURIComponent(uid)}` }, ends.get(e.to_uid)?.label ?? e.to_uid)))))
        : null,
      h('section', { class: 'card', 'aria-labelledby': 'edges-h' }, h('h2', { id: 'edges-h' }, `Edges (${edges.length})`), edgesTable(uid, edges, ends), pathForm(ctx, node)),
      nb,
      h('section', { class: 'card', 'aria-labelledby': 'hist-h' }, h('h2', { id: 'hist-h' }, `History (${versions.length} version${versions.length === 1 ? '' : 's'})`), history(versions)),
      h('details', { class: 'card' }, h('summary', {}, 'Raw record'), json(node)),
    );
    await busy(null, null, () => neighborhood(ctx, node, nb));
  },
};

export const paths: Area = {
  id: 'paths',
  routes: ['/paths'],
  nav: { label: 'Paths', path: '/paths', group: 'Graph' },
  title: () => 'Paths between nodes',
  async render(ctx, _p, main, q) {
    const from = input({ name: 'from', required: true, value: q.get('from') ?? '' });
    const to = input({ name: 'to', required: true, value: q.get('to') ?? '' });
    const depth = input({ type: 'number', name: 'max_depth', min: 1, max: 16, value: q.get('max_depth') ?? '5' });
    const go = h('button', { type: 'submit' }, 'Find path');
    const errors = errorBox();
    const out = h('section', { 'aria-live': 'polite' });
    const f = h('form', { class: 'card search' }, field('From (node uid)', from), field('To (node uid)', to), field('Max hops', depth), go);
    f.addEventListener('submit', (e) => {
      e.preventDefault();
      ctx.navigate(`${BASE}/paths?${new URLSearchParams({ from: from.value.trim(), to: to.value.trim(), max_depth: depth.value })}`);
    });
    replace(main, h('h1', {}, 'Paths between nodes'), f, errors, out);
    if (!q.get('from') || !q.get('to')) return;
    await busy(go, errors, async () => {
      const r = await ctx.api.get<{ found: boolean; hops: number | null; path_cost: number | null; steps: PathStep[] }>('/path', {
        query: { from: q.get('from')!, to: q.get('to')!, max_depth: q.get('max_depth') ?? undefined },
      });
      if (!r.found) return replace(out, h('p', { class: 'card' }, 'No path within that many hops.'));
      replace(
        out,
        h('div', { class: 'card' }, h('h2', {}, `${r.hops} hop${r.hops === 1 ? '' : 's'} (cost ${r.path_cost?.toFixed(3)})`),
          h('ol', { class: 'path' }, r.steps.map((s) => h('li', {}, s.edge_type ? h('span', { class: 'muted' }, `${s.direction === 'incoming' ? '←' : '→'} ${s.edge_type} ${s.direction === 'incoming' ? '—' : '→'} `) : null, nodeLink(s.node_uid, s.label), h('span', { class: 'muted' }, ` ${s.node_type}`))))),
      );
    });
  },
};
