import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, TestAppOptions, startTestApp } from '../support/test-app';
import { eventually } from '@strata/domain/testing/eventually';

/** A running app with one organization: a read+write key, a read-only key, the owner JWT. */
export interface RetrievalFixture {
  app: TestApp;
  w: Api;
  ro: Api;
  jwt: string;
  orgId: string;
  /** the read+write key itself (to talk to a restarted app) */
  key: string;
  close(opts?: { keepData?: boolean }): Promise<void>;
}

export async function startRetrieval(opts: TestAppOptions = {}): Promise<RetrievalFixture> {
  const app = await startTestApp(opts);
  return { ...(await newOrg(app)), app, close: (o) => app.close(o) };
}

/** Another organization on the same app (tenant isolation). */
export async function newOrg(app: TestApp): Promise<Omit<RetrievalFixture, 'app' | 'close'>> {
  const user = await signUp(app.url);
  const rw = await createApiKey(app.url, user.access_token, { scopes: ['read', 'write'], name: 'rw' });
  const ro = await createApiKey(app.url, user.access_token, { scopes: ['read'], name: 'ro' });
  return { w: api(app.url, rw.key), ro: api(app.url, ro.key), jwt: user.access_token, orgId: user.org_id, key: rw.key };
}

export async function mk(c: Api, nodeType: string, label: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await c.post('/node', { node_type: nodeType, label, ...extra });
  if (r.status !== 201) throw new Error(`POST /node ${nodeType}: ${r.status} ${r.text}`);
  return r.body.uid;
}

export async function link(c: Api, from: string, to: string, edgeType: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await c.post('/edge', { from_uid: from, to_uid: to, edge_type: edgeType, ...extra });
  if (r.status !== 201) throw new Error(`POST /edge ${edgeType}: ${r.status} ${r.text}`);
  return r.body.uid;
}

/** Asserts an error response: status, code and (optionally) the field it names. */
export function expectError(r: { status: number; body: any; text: string }, status: number, code: string, field?: string): void {
  if (r.status !== status || r.body?.code !== code || (field !== undefined && r.body?.field !== field))
    throw new Error(`expected ${status} ${code}${field ? ` (${field})` : ''}, got ${r.status}: ${r.text}`);
}

/** Polls `fn` until it returns something truthy (background work: jobs, automatic embedding). */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  return (await eventually(fn, { what, timeoutMs: ms, everyMs: 25 })) as T;
}
