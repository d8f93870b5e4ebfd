import { mk, startRetrieval, RetrievalFixture } from './retrieval-fixture';

/**
 * A small corpus with one clearly best document per query. Text ranking is BM25 (stemmed,
 * accent-folded); semantic ranking uses the built-in lexical embedder (shared words and
 * character n-grams, so it also survives typos); hybrid fuses both.
 */
const CORPUS: Record<string, { type: string; label: string; summary: string; props?: Record<string, unknown> }> = {
  photosynthesis: { type: 'Concept', label: 'Photosynthesis', summary: 'Plants convert sunlight, water and carbon dioxide into glucose using chlorophyll' },
  respiration: { type: 'Concept', label: 'Cellular respiration', summary: 'Cells break down glucose with oxygen to release energy as ATP' },
  marathon: { type: 'Claim', label: 'Marathon runners train aerobic capacity', summary: 'Long distance running builds endurance over months of training', props: { content: 'running long distances' } },
  espresso: { type: 'Claim', label: 'Espresso extraction depends on grind size', summary: 'A finer grind slows water flow and increases extraction of coffee' },
  creme: { type: 'Concept', label: 'Crème brûlée', summary: 'A custard dessert with a caramelised sugar crust' },
  battery: { type: 'Claim', label: 'Lithium batteries power electric vehicles', summary: 'Battery energy density limits the driving range of electric cars' },
  solar: { type: 'Claim', label: 'Solar panels convert sunlight into electricity', summary: 'Photovoltaic cells produce current when light hits silicon' },
  volcano: { type: 'Concept', label: 'Volcanic eruptions', summary: 'Magma rises through the crust and erupts as lava and ash' },
  tides: { type: 'Concept', label: 'Ocean tides', summary: 'The gravitational pull of the moon raises and lowers sea levels' },
  chess: { type: 'Claim', label: 'Chess openings control the centre', summary: 'Early moves fight for the central squares of the board' },
  engine: { type: 'Concept', label: 'Car engine repair', summary: 'Mechanics replace spark plugs, belts and gaskets in combustion engines' },
  vaccine: { type: 'Claim', label: 'Vaccines train the immune system', summary: 'Antigens prompt antibodies and memory cells without causing disease' },
  bread: { type: 'Concept', label: 'Sourdough bread baking', summary: 'Wild yeast and lactic bacteria leaven the dough slowly' },
  glaciers: { type: 'Claim', label: 'Glaciers are retreating', summary: 'Rising temperatures melt alpine ice faster than snow accumulates' },
};

describe('relevance of text, semantic (lexical) and hybrid ranking', () => {
  let f: RetrievalFixture;
  const uid: Record<string, string> = {};
  const key = (u: string) => Object.entries(uid).find(([, v]) => v === u)?.[0];

  beforeAll(async () => {
    f = await startRetrieval();
    for (const [k, d] of Object.entries(CORPUS)) uid[k] = await mk(f.w, d.type, d.label, { summary: d.summary, props: d.props });
  }, 60_000);
  afterAll(() => f.close());

  const top = async (action: string, query: string, extra: Record<string, unknown> = {}) => {
    const r = await f.w.post('/retrieve', { action, query, ...extra });
    expect(r.status).toBe(200);
    return (r.body as { node: { uid: string } }[]).map((x) => key(x.node.uid));
  };

  it.each([
    ['photosynthesis chlorophyll', 'photosynthesis'],
    ['marathon running', 'marathon'], // stemming: running ~ runners
    ['creme brulee', 'creme'], // accents folded
    ['electric vehicle battery', 'battery'],
    ['moon gravity sea', 'tides'],
    ['espresso grind', 'espresso'],
  ])('text: %s → %s first', async (query, expected) => {
    expect((await top('text', query))[0]).toBe(expected);
  });

  it('text: words found nowhere return nothing', async () => {
    expect(await top('text', 'zyxwvut qwerty')).toEqual([]);
  });

  it.each([
    ['photosynthesis', 'photosynthesis'],
    ['photosynthsis chlorophyl', 'photosynthesis'], // typos still share character n-grams
    ['repairing the engine of a car', 'engine'],
    ['sourdough baking', 'bread'],
    ['immune vaccines', 'vaccine'],
  ])('semantic (lexical): %s → %s first', async (query, expected) => {
    expect((await top('semantic', query))[0]).toBe(expected);
  });

  it('semantic scores are cosine similarities, best first', async () => {
    const r = await f.w.post('/retrieve', { action: 'semantic', query: 'volcanic eruptions magma', k: 3 });
    const scores = r.body.map((x: any) => x.score);
    expect(scores[0]).toBeGreaterThan(0.3);
    expect(scores[0]).toBeLessThanOrEqual(1);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(key(r.body[0].node.uid)).toBe('volcano');
  });

  it.each([
    ['solar photovoltaic electricity', 'solar'],
    ['glacier ice melting', 'glaciers'],
    ['photosynthsis chlorophyl', 'photosynthesis'], // the text leg finds nothing (typos), the vector leg still does
    ['chess centre', 'chess'],
  ])('hybrid: %s → %s first', async (query, expected) => {
    expect((await top('hybrid', query))[0]).toBe(expected);
  });

  it('hybrid explains its legs and fuses by rank (k = 60)', async () => {
    const r = await f.w.post('/retrieve', { action: 'hybrid', query: 'sunlight', k: 3, explain: true });
    for (const item of r.body) {
      const expected = item.legs.reduce((s: number, l: any) => s + 1 / (60 + l.rank), 0);
      expect(item.score).toBeCloseTo(expected, 12);
      for (const l of item.legs) expect(['fts', 'vec']).toContain(l.leg);
    }
    const first = r.body[0];
    expect(first.legs.map((l: any) => l.leg).sort()).toEqual(['fts', 'vec']);
    const noExplain = await f.w.post('/retrieve', { action: 'hybrid', query: 'sunlight', k: 3 });
    expect(noExplain.body[0].legs).toBeUndefined();
  });
});
