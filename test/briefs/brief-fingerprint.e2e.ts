import { ProjectSources, sourceFingerprint } from '@strata/domain/briefs';
import { FixedClock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ProjectSourcesService } from '../../apps/api/src/briefs/sources/project-sources.service';
import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { link, mk } from '../retrieval/retrieval-fixture';
import { BETA, BriefWorld, seedBriefWorld, selector } from './brief-world';

/** Order-free view of loaded sources, to compare two loads field by field. */
function canonical(s: ProjectSources) {
  const byUid = <T extends { uid: string }>(l: T[]) => [...l].sort((a, b) => (a.uid < b.uid ? -1 : 1));
  return {
    ...s,
    edges: byUid(s.edges),
    admitting: byUid(s.admitting),
    extractions: new Map([...s.extractions].map(([u, l]) => [u, [...l].sort((a, b) => (a.edge_uid < b.edge_uid ? -1 : 1))])),
  };
}

describe('Brief source fingerprint: the column-only identities agree with the loaded sources', () => {
  let t: TestApp;
  let w: Api;
  let org: string;
  let world: BriefWorld;
  let embedded: ProjectSourcesService;
  let generic: ProjectSourcesService;

  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(1_790_000_000) });
    const owner = await signUp(t.url);
    org = owner.org_id;
    w = api(t.url, (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key);
    world = await seedBriefWorld(w);
    embedded = t.app.get(ProjectSourcesService, { strict: false });
    const graph = t.app.get<GraphReadModel>(GRAPH_READ_MODEL, { strict: false });
    // the same store seen only through the port, as in servers mode (no column-only SQL)
    const portOnly = { getNodes: graph.getNodes.bind(graph), getNode: graph.getNode.bind(graph), listEdges: graph.listEdges.bind(graph) } as unknown as GraphReadModel;
    generic = new ProjectSourcesService(portOnly);
  }, 60_000);
  afterAll(() => t.close());

  /** Every path gives one fingerprint (and GET state shows it); returns it. */
  async function agreed(): Promise<string> {
    const lean = sourceFingerprint(await embedded.identities(org, world.project));
    const loaded = await embedded.load(org, world.project);
    const viaPort = await generic.load(org, world.project);
    expect(sourceFingerprint(loaded)).toBe(lean);
    expect(sourceFingerprint(viaPort)).toBe(lean);
    expect(sourceFingerprint(await generic.identities(org, world.project))).toBe(lean);
    expect(canonical(loaded)).toEqual(canonical(viaPort));
    expect((await w.get(`/projects/${world.project}/brief`)).body.source_fingerprint).toBe(lean);
    return lean;
  }

  it('stays equal across edits, admissions and removals, and changes with each', async () => {
    let last = await agreed();
    const step = async () => {
      const f = await agreed();
      expect(f).not.toBe(last);
      last = f;
    };
    const loaded = await embedded.load(org, world.project);
    expect(loaded.nodes.size).toBe(5);
    expect(loaded.edges.length).toBe(2);

    expect((await w.patch(`/node/${world.cracks}`, { label: 'Tiles crack under heavy thermal load' })).status).toBe(200);
    await step();
    expect((await w.patch(`/node/${world.chunkA}`, { salience: 0.9 })).status).toBe(200);
    await step();
    expect((await w.patch(`/edge/${world.support}`, { weight: 0.3 })).status).toBe(200);
    await step();

    // a new document with a chunk and a claim is admitted
    const docD = await mk(w, 'Document', 'Delta brief', { props: { title: 'Delta brief', document_type: 'note' } });
    const chunkD = await mk(w, 'Chunk', 'Delta · 0', { props: { content: BETA, chunk_index: 0, chunk_type: 'text' } });
    await link(w, chunkD, docD, 'ChunkOf');
    const claim = await mk(w, 'Claim', 'tiles never crack', { props: { content: 'Engineers argue tiles never crack' } });
    await link(w, claim, chunkD, 'ExtractedFrom', { props: { location: selector(BETA, 'Engineers argue tiles never crack') } });
    expect(await agreed()).toBe(last);
    const partOf = await link(w, docD, world.project, 'PartOfProject');
    await step();
    const contra = await link(w, claim, world.ablates, 'Contradicts');
    await step();
    // an edge to a node outside the Project is not among Edges(P)
    const outsider = await mk(w, 'Claim', 'unrelated', { props: { content: 'unrelated' } });
    await link(w, claim, outsider, 'Supports');
    expect(await agreed()).toBe(last);

    // removals: an edge among nodes, a node, an admission
    const withContra = last;
    expect((await w.delete(`/edge/${contra}`)).status).toBe(200);
    await step();
    expect(last).not.toBe(withContra);
    expect((await w.delete(`/node/${world.question}`)).status).toBe(200);
    await step();
    expect((await w.delete(`/edge/${partOf}`)).status).toBe(200);
    await step();
    const after = await embedded.load(org, world.project);
    expect(after.documents.has(docD)).toBe(false);
    expect(after.nodes.has(world.question)).toBe(false);
    expect(after.nodes.has(claim)).toBe(false);
  });

  it('keeps the identities until the Project\'s sources change (embedded store, read model)', async () => {
    const first = await embedded.identities(org, world.project);
    const before = sourceFingerprint(first);
    await w.get(`/projects/${world.project}/brief`);
    expect(await embedded.identities(org, world.project)).toBe(first);
    // a write outside the Project leaves its view as it was
    await mk(w, 'Claim', 'elsewhere', { props: { content: 'elsewhere' } });
    expect(await embedded.identities(org, world.project)).toBe(first);
    // an edit of an admitted node gives new identities
    expect((await w.patch(`/node/${world.cracks}`, { label: 'Tiles crack under the heaviest load' })).status).toBe(200);
    // the kept view is brought up to date with the edited member (updated in place, not read afresh)
    const next = await embedded.identities(org, world.project);
    expect(sourceFingerprint(next)).not.toBe(before);
    expect(sourceFingerprint(next)).toBe(sourceFingerprint(await generic.identities(org, world.project)));
    expect((await embedded.fingerprinted(org, world.project)).fingerprint).toBe(sourceFingerprint(next));
    // without the read model (the graph port alone) every call traverses afresh
    expect(await generic.identities(org, world.project)).not.toBe(await generic.identities(org, world.project));
  });
});
