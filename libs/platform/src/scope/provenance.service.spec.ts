import type { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ProvenanceService } from './provenance.service';
import { ReadScope, ReadScopeService } from './read-scope';

/** project ← doc (PartOfProject) ← chunk (ChunkOf) ← fact (ExtractedFrom); a node outside. */
function fakeGraph(extraEdges: { from_uid: string; to_uid: string; edge_type: string }[] = []): GraphReadModel {
  const types: Record<string, string> = { project: 'Project', doc: 'Document', chunk: 'Chunk', fact: 'Claim', outside: 'Claim' };
  const node = (uid: string) => (types[uid] ? { uid, node_type: types[uid], tombstone_at: null } : null);
  const edges = [
    { from_uid: 'doc', to_uid: 'project', edge_type: 'PartOfProject' },
    { from_uid: 'chunk', to_uid: 'doc', edge_type: 'ChunkOf' },
    { from_uid: 'fact', to_uid: 'chunk', edge_type: 'ExtractedFrom' },
    ...extraEdges,
  ];
  return {
    getNode: async (_org: string, uid: string) => node(uid),
    getNodes: async (_org: string, uids: string[]) => new Map(uids.filter((u) => node(u)).map((u) => [u, node(u)])),
    listEdges: async (_org: string, f: { to_uid: string; edge_types: string[] }) => edges.filter((e) => e.to_uid === f.to_uid && f.edge_types.includes(e.edge_type)),
  } as unknown as GraphReadModel;
}

describe('Project provenance (REFERENCE §5.1)', () => {
  it('a credential scoped to the Project sees the Project itself and what it admits', async () => {
    const p = new ProvenanceService(fakeGraph());
    expect([...(await p.admittedBy('org', 'project'))].sort()).toEqual(['chunk', 'doc', 'fact', 'project']);
  });

  it('the project_uid filter keeps the admitted Documents, their Chunks and what was extracted from them, not the Project', async () => {
    const graph = fakeGraph();
    const scopes = new ReadScopeService(graph, new ProvenanceService(graph), null as never);
    const filtered = await scopes.withProject(new ReadScope('org', null), 'project');
    expect(filtered.uidList()!.sort()).toEqual(['chunk', 'doc', 'fact']);
    expect(filtered.allows('project')).toBe(false);
    // …unless the Project was itself extracted from an admitted Chunk
    const extracted = fakeGraph([{ from_uid: 'project', to_uid: 'chunk', edge_type: 'ExtractedFrom' }]);
    const again = await new ReadScopeService(extracted, new ProvenanceService(extracted), null as never).withProject(new ReadScope('org', null), 'project');
    expect(again.allows('project')).toBe(true);
  });
});
