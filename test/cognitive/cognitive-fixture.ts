import { api, Api, createApiKey, signUp } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';
import { FixedClock } from '@strata/domain/time';

/** One running app and one organization with a read+write key and a read-only key. */
export interface CognitiveFixture {
  clock?: FixedClock;
  app: TestApp;
  /** read+write API key client */
  w: Api;
  /** read-only API key client */
  ro: Api;
  jwt: string;
  close(): Promise<void>;
}

/** `clock`: the service's, when a test reads times on it (the system clock otherwise) */
export async function startCognitive(clock?: FixedClock): Promise<CognitiveFixture> {
  const app = await startTestApp({ clock });
  const user = await signUp(app.url);
  const rw = await createApiKey(app.url, user.access_token, { scopes: ['read', 'write'], name: 'rw' });
  const ro = await createApiKey(app.url, user.access_token, { scopes: ['read'], name: 'ro' });
  return { app, clock, w: api(app.url, rw.key), ro: api(app.url, ro.key), jwt: user.access_token, close: () => app.close() };
}

/**
 * Two Spaces made by the owner's JWT (`owner`), and a read+write key limited to the first
 * (`inA`): a caller that cannot see what the owner puts in the second.
 */
export async function twoSpaces(f: CognitiveFixture, labels: [string, string]): Promise<{ owner: Api; a: string; b: string; inA: Api }> {
  const owner = api(f.app.url, f.jwt);
  const [a, b] = [(await call(owner, '/node', { node_type: 'Space', label: labels[0] }, 201)).uid as string, (await call(owner, '/node', { node_type: 'Space', label: labels[1] }, 201)).uid as string];
  const inA = api(f.app.url, (await createApiKey(f.app.url, f.jwt, { space_uids: [a] })).key);
  return { owner, a, b, inA };
}

/** Live edges leaving a node, as GET /edges reports them. */
export async function edgesFrom(c: Api, uid: string): Promise<{ uid: string; edge_type: string; from_uid: string; to_uid: string; props: any; agent_id: string | null }[]> {
  const r = await c.get(`/edges?from_uid=${encodeURIComponent(uid)}`);
  if (r.status !== 200) throw new Error(`GET /edges: ${r.status} ${r.text}`);
  return r.body;
}

export async function edgesTo(c: Api, uid: string) {
  const r = await c.get(`/edges?to_uid=${encodeURIComponent(uid)}`);
  if (r.status !== 200) throw new Error(`GET /edges: ${r.status} ${r.text}`);
  return r.body as { uid: string; edge_type: string; from_uid: string; to_uid: string; props: any }[];
}

export async function node(c: Api, uid: string) {
  const r = await c.get(`/node/${uid}`);
  if (r.status !== 200) throw new Error(`GET /node/${uid}: ${r.status} ${r.text}`);
  return r.body;
}

/** Creates a node of any type through the generic route (targets for triggers). */
export async function makeNode(c: Api, nodeType: string, label = nodeType, props?: Record<string, unknown>): Promise<string> {
  const r = await c.post('/node', { node_type: nodeType, label, props });
  if (r.status !== 201) throw new Error(`POST /node ${nodeType}: ${r.status} ${r.text}`);
  return r.body.uid;
}

/**
 * Everything a write could have touched: nodes and edges (tombstoned too) and, from the log,
 * the number of version records and series points.
 */
export async function graphSize(c: Api): Promise<{ nodes: number; edges: number; versions: number; points: number }> {
  const n = await c.get('/nodes?limit=1000&include_tombstoned=true');
  const s = await c.get('/stats');
  if (n.status !== 200 || s.status !== 200) throw new Error(`graphSize: ${n.status} ${s.status}`);
  return { nodes: n.body.items.length, edges: s.body.total_edges, versions: s.body.total_versions, points: s.body.series_point_count };
}

/** Posts a cognitive call and insists on the status, showing the body when it differs. */
export async function call(c: Api, path: string, body: Record<string, unknown>, status: number): Promise<any> {
  const r = await c.post(path, body);
  if (r.status !== status) throw new Error(`POST ${path} ${JSON.stringify(body).slice(0, 300)}: expected ${status}, got ${r.status}: ${r.text}`);
  return r.body;
}

/** One minimal write per cognitive endpoint; each creates at least one node. */
export const WRITE_CALLS: [string, Record<string, unknown>][] = [
  ['/reality/capture', { action: 'source', label: 'x' }],
  ['/reality/series', { action: 'create', label: 'x' }],
  ['/epistemic/argument', { claim: { label: 'x' } }],
  ['/epistemic/inquiry', { action: 'hypothesis', label: 'x' }],
  ['/epistemic/structure', { action: 'concept', label: 'x' }],
  ['/intent/commitment', { action: 'goal', label: 'x' }],
  ['/intent/deliberation', { action: 'open_decision', label: 'x' }],
  ['/action/procedure', { action: 'create_flow', label: 'x' }],
  ['/action/risk', { action: 'assess' }],
  ['/action/skill', { action: 'propose', label: 'x' }],
  ['/memory/session', { action: 'open' }],
  ['/memory/distill', { label: 'x' }],
  ['/memory/config', { action: 'set_policy', label: 'x' }],
  ['/agent/plan', { action: 'create_task' }],
  ['/agent/governance', { action: 'create_policy', label: 'x' }],
  ['/agent/execution', { action: 'start' }],
];

