import { resolveProjectionNames, resolveServerProjectionNames } from './projection-names';

describe('resolveProjectionNames (embedded)', () => {
  it('means every projection, the vector index included, when none is named', () => {
    expect(resolveProjectionNames([])).toEqual({ names: ['graph', 'text', 'accounts', 'governance', 'ontology', 'briefs', 'audit', 'mcp', 'agents', 'knowledge_health', 'project_sources'], all: ['graph', 'text', 'accounts', 'governance', 'ontology', 'briefs', 'audit', 'mcp', 'agents', 'knowledge_health', 'project_sources'], vectors: true });
  });

  it('keeps the SQLite projections in application order and the vector index apart', () => {
    expect(resolveProjectionNames(['vectors'])).toMatchObject({ names: [], vectors: true });
    expect(resolveProjectionNames(['accounts', 'graph'])).toMatchObject({ names: ['graph', 'accounts'], vectors: false });
  });

  it('refuses unknown names in one line that lists the known ones', () => {
    expect(() => resolveProjectionNames(['vector', 'grpah'])).toThrow("unknown projection 'vector', 'grpah'; projections: graph, text, accounts, governance, ontology, briefs, audit, mcp, agents, knowledge_health, project_sources, vectors");
  });
});

describe('resolveServerProjectionNames', () => {
  it("names the worker's projections, vectors among them, and refuses others", () => {
    expect(resolveServerProjectionNames([])).toEqual(['graph', 'text', 'vectors']);
    expect(resolveServerProjectionNames(['vectors', 'graph'])).toEqual(['graph', 'vectors']);
    expect(() => resolveServerProjectionNames(['accounts'])).toThrow("unknown projection 'accounts'; projections: graph, text, vectors");
  });
});
