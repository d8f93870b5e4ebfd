import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Api, api, signUpWithKey } from '../support/http';
import { TestApp, TestAppOptions, startTestApp } from '../support/test-app';

/** The service with limits out of the way (the tests write thousands of nodes quickly). */
export function startService(opts: TestAppOptions = {}): Promise<TestApp> {
  return startTestApp({ rateLimitPerMinute: 10_000_000, planLimits: { free: { nodes: null } }, ...opts });
}

/** Starts the service again on a data dir the test keeps, runs `fn` against it, then stops it keeping the data. */
export async function reopenService<T>(dataDir: string, fn: (t: TestApp) => Promise<T>, opts: TestAppOptions = {}): Promise<T> {
  const t = await startService({ ...opts, dataDir });
  try {
    return await fn(t);
  } finally {
    await t.close({ keepData: true });
  }
}

export interface Tenant {
  c: Api;
  key: string;
  key_id: string;
  org_id: string;
  user_id: string;
  access_token: string;
}

export async function tenant(url: string): Promise<Tenant> {
  const s = await signUpWithKey(url);
  return { c: api(url, s.key), key: s.key, key_id: s.key_id, org_id: s.org_id, user_id: s.user_id, access_token: s.access_token };
}

/** `count` nodes in batches of 500, each batch with a chain of edges: a log with some bulk. */
export async function seedGraph(c: Api, count: number, tag = 'seed'): Promise<{ nodes: string[]; edges: string[] }> {
  const nodes: string[] = [];
  const edges: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const n = Math.min(500, count - start);
    const batch = Array.from({ length: n }, (_, i) => ({ ref: `n${i}`, label: `${tag} goal ${start + i}`, node_type: 'Goal', props: { description: `about ${tag} ${start + i}` } }));
    const links = Array.from({ length: n - 1 }, (_, i) => ({ from_ref: `n${i + 1}`, to_ref: `n${i}`, edge_type: 'DependsOn' }));
    const r = await c.post('/batch', { nodes: batch, edges: links });
    if (r.status !== 201) throw new Error(`seed batch: ${r.status} ${r.text}`);
    nodes.push(...r.body.node_uids);
    edges.push(...r.body.edge_uids);
  }
  return { nodes, edges };
}

/** Runs SQL straight on the projections file, as a broken disk or a bad migration would. */
export function tamperProjections(dataDir: string, sql: string, ...params: unknown[]): number {
  const db = new Database(path.join(dataDir, 'projections.db'));
  try {
    return db.prepare(sql).run(...params).changes;
  } finally {
    db.close();
  }
}


/**
 * Edits an organization's saved vector space (vectors/org-*.json and .f32, as the index writes
 * them) behind the service's back: `edit` gets the ids per slot and the raw vectors.
 */
export function tamperVectors(dataDir: string, org: string, edit: (uids: string[], vectors: Float32Array, dimensions: number) => void): void {
  const dir = path.join(dataDir, 'vectors');
  const name = fs.readdirSync(dir).find((f) => /^org-[0-9a-f]{40}\.json$/.test(f) && JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).org === org);
  if (!name) throw new Error(`no saved vector space for ${org} in ${dir}`);
  const metaFile = path.join(dir, name);
  const f32 = metaFile.replace(/\.json$/, '.f32');
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  const raw = fs.readFileSync(f32);
  const vectors = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  edit(meta.uids, vectors, meta.dimensions);
  fs.writeFileSync(f32, Buffer.from(vectors.buffer));
  fs.writeFileSync(metaFile, JSON.stringify(meta));
}
