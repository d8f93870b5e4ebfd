import { composeVersion, diffItems, StoredBriefVersion } from './brief-versions';
import { decideItemPatch } from './brief-item-actions';
import { ProjectSources, sourceFingerprint } from './project-sources';
import { structuralCandidates } from './structural-ranking';

function sources(claims: { uid: string; text: string; docs: string[] }[]): ProjectSources {
  const s: ProjectSources = { project_uid: 'p', documents: new Map(), chunks: new Map(), nodes: new Map(), edges: [], admitting: [], extractions: new Map() };
  for (const d of ['d1', 'd2']) {
    s.documents.set(d, { uid: d, version: 1, title: d.toUpperCase(), page_map: [] });
    s.chunks.set(`c-${d}`, { uid: `c-${d}`, version: 1, document_uid: d, content: claims.map((c) => c.text).join(' '), chunk_index: 0, char_offset_start: null });
  }
  claims.forEach((c, n) => {
    s.nodes.set(c.uid, { uid: c.uid, version: 1, node_type: 'Claim', label: c.text, props: { content: c.text }, confidence: 0.5, created_at: n, status: undefined, importance: null });
    s.extractions.set(c.uid, c.docs.map((d, i) => ({ edge_uid: `e-${c.uid}-${i}`, edge_version: 1, chunk_uid: `c-${d}`, location: null })));
  });
  return s;
}

const regenerate = (s: ProjectSources, prev: StoredBriefVersion | null, memory = new Map()) =>
  composeVersion(
    { project_uid: 'p', version: (prev?.version ?? 0) + 1, now: 100, trigger: 'regenerate', requested_by: 'user:u', generated_by: 'structural', model: null, source_fingerprint: sourceFingerprint(s), sources: s, summary: null, generated: structuralCandidates(s) },
    prev,
    memory,
  );

describe('brief versions (REFERENCE §12.5)', () => {
  const both = sources([
    { uid: 'a', text: 'Alpha holds', docs: ['d1', 'd2'] },
    { uid: 'b', text: 'Beta holds', docs: ['d1', 'd2'] },
  ]);

  it('a fingerprint changes with any version of any admitted source', () => {
    const again = sources([
      { uid: 'a', text: 'Alpha holds', docs: ['d1', 'd2'] },
      { uid: 'b', text: 'Beta holds', docs: ['d1', 'd2'] },
    ]);
    expect(sourceFingerprint(again)).toBe(sourceFingerprint(both));
    again.nodes.get('a')!.version = 2;
    expect(sourceFingerprint(again)).not.toBe(sourceFingerprint(both));
  });

  it('carries a pinned item the generator no longer produces, stale once its subject left Nodes(P)', () => {
    const v1 = regenerate(both, null);
    const a = v1.items.find((i) => i.subject_uids[0] === 'a')!;
    const pinned = decideItemPatch(v1, a.id, { action: 'pin' }, 'user:u', 101, 1);
    expect(pinned.changed).toBe(true);
    const onlyB = sources([{ uid: 'b', text: 'Beta holds', docs: ['d1', 'd2'] }]);
    const v3 = regenerate(onlyB, pinned.version);
    const carried = v3.items.find((i) => i.id === a.id)!;
    expect(carried).toMatchObject({ pinned: true, stale: true, rank: 1, citations: [] });
    expect(v3.changes.find((c) => c.item_id === a.id)?.type).toBe('citations_changed');
    // unpinned, an item the last regeneration did not produce leaves the brief
    const unpinned = decideItemPatch(v3, a.id, { action: 'unpin' }, 'user:u', 102, undefined);
    expect(unpinned.version.items.some((i) => i.id === a.id)).toBe(false);
    expect(unpinned.version.changes.map((c) => c.type)).toEqual(['removed']);
  });

  it('compares items by id: added, removed, text and pin changes, only the material ones counted', () => {
    const v1 = regenerate(both, null);
    const [x, y] = v1.items;
    const changed = [{ ...x, text: 'other', pinned: true }];
    const changes = diffItems(v1.items, changed);
    expect(changes.map((c) => [c.type, c.material])).toEqual([
      ['text_changed', true],
      ['pinned', false],
      ['removed', true],
    ]);
    expect(changes[2].item_id).toBe(y.id);
  });
});
