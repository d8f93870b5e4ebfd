import type { Area, Ctx } from '../context.js';
import { busy, errorBox, field, h, input, replace, select, table } from '../dom.js';
import { LAYERS } from '../layers.js';
import { BASE, href } from '../router.js';
import type { NodeRecord } from '../types.js';

/**
 * Search: full text (`POST /search`), semantic or hybrid (`POST /retrieve`), filtered by layer
 * and node type. The query lives in the URL, so a search can be linked, reloaded and
 * navigated back to.
 */
interface Hit {
  uid: string;
  label: string;
  summary: string | null;
  node_type: string;
  layer: string;
  score: number;
}

async function run(ctx: Ctx, q: URLSearchParams): Promise<Hit[]> {
  const query = q.get('q') ?? '';
  const mode = q.get('mode') ?? 'text';
  const layer = q.get('layer') || undefined;
  const type = q.get('type') || undefined;
  if (mode === 'text') {
    return ctx.api.post<Hit[], '/search'>('/search', { query, limit: 50, ...(layer ? { layer } : {}), ...(type ? { node_type: type } : {}) });
  }
  const found = await ctx.api.post<{ node: NodeRecord; score: number }[], '/retrieve'>('/retrieve', {
    action: mode,
    query,
    k: 50,
    ...(layer ? { layer } : {}),
    ...(type ? { node_types: [type] } : {}),
  });
  return found.map(({ node, score }) => ({ uid: node.uid, label: node.label, summary: node.summary, node_type: node.node_type, layer: node.layer, score }));
}

export const explore: Area = {
  id: 'explore',
  routes: ['/explore'],
  nav: { label: 'Search', path: '/explore', group: 'Graph' },
  title: () => 'Search the graph',
  async render(ctx, _p, main, q) {
    const query = input({ type: 'search', name: 'q', value: q.get('q') ?? '', required: true, id: 'search-query' });
    const mode = select('mode', [['text', 'Full text'], ['semantic', 'Semantic'], ['hybrid', 'Hybrid']], q.get('mode') ?? 'text');
    const layer = select('layer', [['', 'Any layer'], ...LAYERS.map((l) => [l, l] as [string, string])], q.get('layer') ?? '');
    const type = input({ name: 'type', value: q.get('type') ?? '', list: 'node-types', placeholder: 'Any type' });
    const types = h('datalist', { id: 'node-types' });
    const go = h('button', { type: 'submit' }, 'Search');
    const errors = errorBox();
    const results = h('section', { class: 'results', 'aria-live': 'polite', 'aria-labelledby': 'results-h' });
    const form = h('form', { class: 'card search', role: 'search' }, field('Search for', query), field('Mode', mode), field('Layer', layer), field('Node type', type), types, go);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const next = new URLSearchParams({ q: query.value, mode: mode.value, layer: layer.value, type: type.value });
      for (const [k, v] of [...next]) if (!v) next.delete(k);
      ctx.navigate(`${BASE}/explore?${next}`);
    });
    replace(main, h('h1', {}, 'Search the graph'), form, errors, results);
    if (!q.get('q')) query.focus();
    // the types present in this graph, as suggestions
    void ctx.api.get<{ nodes_by_type: Record<string, number> }>('/stats').then(
      (s) => types.replaceChildren(...Object.keys(s.nodes_by_type).sort().map((t) => h('option', { value: t }))),
      () => undefined,
    );
    if (!q.get('q')) return;
    replace(results, h('h2', { id: 'results-h' }, 'Results'), h('p', { class: 'muted', role: 'status' }, 'Searching…'));
    await busy(go, errors, async () => {
      const hits = await run(ctx, q);
      replace(
        results,
        h('h2', { id: 'results-h' }, `${hits.length} result${hits.length === 1 ? '' : 's'}`),
        table<Hit>('Search results', [
          ['Node', (x) => h('div', {}, h('a', { href: href('nodes', x.uid), class: 'node-link' }, x.label), x.summary ? h('div', { class: 'muted' }, x.summary) : null)],
          ['Type', (x) => x.node_type],
          ['Layer', (x) => h('span', { class: `pill layer-${x.layer}` }, x.layer)],
          ['Score', (x) => x.score.toFixed(3)],
        ], hits, 'Nothing matches. Try other words, or another mode.'),
      );
    });
  },
};
