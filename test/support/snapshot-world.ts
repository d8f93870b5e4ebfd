import { Api } from './http';

async function ok<T = any>(p: Promise<{ status: number; body: T; text: string }>, status = 200): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  return r.body;
}

/**
 * A small graph using every part of an export snapshot: built-in and custom types, edges,
 * a tombstone, an alias, a client vector and series points. Shared by the embedded and the
 * servers-mode maintenance tests, so both check export/import on the same data.
 */
export async function populateSnapshotWorld(c: Api) {
  const node = (body: Record<string, unknown>) => ok(c.post('/node', body), 201);
  const link = (from: string, to: string, edge_type: string) => ok(c.post('/edge', { from_uid: from, to_uid: to, edge_type }), 201);
  // configured first: with vectors present, a change of dimensions would be refused
  await ok(c.post('/embeddings/configure', { provider: 'builtin', dimensions: 4, distance_metric: 'cosine' }));
  const claim = await node({ label: 'Water boils at 100C', node_type: 'Claim', props: { content: 'at sea level' }, salience: 0.7, agent_id: 'agent-1' });
  const evidence = await node({ label: 'Kettle test', node_type: 'Evidence', props: { description: 'measured' } });
  const person = await node({ label: 'Ada Lovelace', node_type: 'Person', props: { full_name: 'Ada Lovelace' } });
  const custom = await node({ label: 'Topic', node_type: 'research_topic', layer: 'intent', props: { free: [1, 2] } });
  const gone = await node({ label: 'Old idea', node_type: 'Idea' });
  const supports = await link(evidence.uid, claim.uid, 'Supports');
  await link(person.uid, claim.uid, 'Endorses');
  await link(gone.uid, claim.uid, 'RelatedTo');
  await ok(c.patch(`/node/${claim.uid}`, { props: { certainty_degree: 0.9 } }));
  await ok(c.delete(`/node/${gone.uid}`));
  await ok(c.post('/alias', { text: 'Countess of Lovelace', canonical_uid: person.uid, score: 0.9 }), 201);
  await ok(c.put(`/node/${evidence.uid}/embedding`, { vector: [0.5, 0.25, 0.125, 1] }));
  const series = await ok(c.post('/reality/series', { action: 'create', label: 'kettle temperature', points: [{ ts: 10, value: 20 }, { ts: 20, value: 60, note: 'warming' }] }), 201);
  return { claim, evidence, person, custom, gone, supports, series };
}
