import { useEffect, useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { LAYERS } from '../layers.js';
import { BASE, href } from '../router.js';
import type { NodeRecord } from '../types.js';
import { ErrorBox, Field, Select, Table, useMounted } from '../ui.js';

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

function Explore({ ctx, query: q }: PageProps) {
  const [query, setQuery] = useState(q.get('q') ?? '');
  const [mode, setMode] = useState(q.get('mode') ?? 'text');
  const [layer, setLayer] = useState(q.get('layer') ?? '');
  const [type, setType] = useState(q.get('type') ?? '');
  const [types, setTypes] = useState<string[]>([]);
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const asked = Boolean(q.get('q'));
  const mounted = useMounted();
  useEffect(() => {
    // the types present in this graph, as suggestions
    ctx.api.get<{ nodes_by_type: Record<string, number> }>('/stats').then(
      (s) => mounted() && setTypes(Object.keys(s.nodes_by_type).sort()),
      () => undefined,
    );
    if (!asked) return;
    run(ctx, q).then(
      (h) => mounted() && setHits(h),
      (err) => {
        if (!mounted()) return;
        setError(err);
        setHits([]);
      },
    );
    // the page is mounted anew for every search (the query is in the URL)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const searching = asked && hits === null;
  return (
    <>
      <h1>Search the graph</h1>
      <form
        className="card search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          const next = new URLSearchParams({ q: query, mode, layer, type });
          for (const [k, v] of [...next]) if (!v) next.delete(k);
          ctx.navigate(`${BASE}/explore?${next}`);
        }}
      >
        <Field label="Search for">
          <input type="search" name="q" required id="search-query" autoFocus={!asked} value={query} onChange={(e) => setQuery(e.currentTarget.value)} />
        </Field>
        <Field label="Mode">
          <Select name="mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)} options={[['text', 'Full text'], ['semantic', 'Semantic'], ['hybrid', 'Hybrid']]} />
        </Field>
        <Field label="Layer">
          <Select name="layer" value={layer} onChange={(e) => setLayer(e.currentTarget.value)} options={[['', 'Any layer'], ...LAYERS.map((l) => [l, l] as const)]} />
        </Field>
        <Field label="Node type">
          <input type="text" name="type" list="node-types" placeholder="Any type" value={type} onChange={(e) => setType(e.currentTarget.value)} />
        </Field>
        <datalist id="node-types">
          {types.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <button type="submit" disabled={searching} aria-busy={searching || undefined}>
          Search
        </button>
      </form>
      <ErrorBox error={error} />
      <section className="results" aria-live="polite" aria-labelledby="results-h">
        {searching ? (
          <>
            <h2 id="results-h">Results</h2>
            <p className="muted" role="status">
              Searching…
            </p>
          </>
        ) : hits && !error ? (
          <>
            <h2 id="results-h">{`${hits.length} result${hits.length === 1 ? '' : 's'}`}</h2>
            <Table<Hit>
              caption="Search results"
              rowKey={(x) => x.uid}
              columns={[
                [
                  'Node',
                  (x) => (
                    <div>
                      <a href={href('nodes', x.uid)} className="node-link">
                        {x.label}
                      </a>
                      {x.summary ? <div className="muted">{x.summary}</div> : null}
                    </div>
                  ),
                ],
                ['Type', (x) => x.node_type],
                ['Layer', (x) => <span className={`pill layer-${x.layer}`}>{x.layer}</span>],
                ['Score', (x) => x.score.toFixed(3)],
              ]}
              items={hits}
              empty="Nothing matches. Try other words, or another mode."
            />
          </>
        ) : asked ? (
          <h2 id="results-h">Results</h2>
        ) : null}
      </section>
    </>
  );
}

export const explore: Area = {
  id: 'explore',
  routes: ['/explore'],
  nav: { label: 'Search', path: '/explore', group: 'Graph' },
  title: () => 'Search the graph',
  Page: Explore,
};
