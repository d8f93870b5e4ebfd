import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createStrataClient } from '../../packages/client/src';
import { quickStart } from '../../packages/client/examples/quick-start';
import { request, signUpWithKey } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../..');

/** The typed client (packages/client) against the real service, through its quick-start example. */
describe('@strata/client', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await signUpWithKey(t.url)).key;
  });
  afterAll(() => t.close());

  it('runs the quick start: creates a node, reads it back, finds it by search', async () => {
    const { created, read, hits } = await quickStart(t.url, key);
    expect(created).toMatchObject({ label: 'Ada Lovelace', node_type: 'Person', version: 1 });
    expect(read).toMatchObject({ uid: created.uid, label: 'Ada Lovelace', summary: 'Wrote the first published algorithm' });
    expect(hits.map((h) => h.uid)).toContain(created.uid);
    // what the client returned is what the service stored
    expect((await request(t.url, 'GET', `/node/${created.uid}`, { token: key })).body).toEqual(read);
  });

  it('reports errors as typed values, without throwing', async () => {
    const strata = createStrataClient(t.url, key);
    const missing = await strata.GET('/node/{uid}', { params: { path: { uid: 'no-such-node' } } });
    expect(missing.data).toBeUndefined();
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: expect.any(String) });
    const bad = await createStrataClient(t.url, 'strata_not-a-key').POST('/search', { body: { query: 'x' } });
    expect(bad.response.status).toBe(401);
    // a body the document rejects does not compile
    // @ts-expect-error label is required on POST /node
    const invalid = await strata.POST('/node', { body: { node_type: 'Person' } });
    expect(invalid.response.status).toBe(400);
  });

  it('calls a cognitive route with a typed body and reads its CreateResult', async () => {
    const strata = createStrataClient(t.url, key);
    const made = await strata.POST('/epistemic/inquiry', { body: { action: 'question', label: 'Why does the engine stall?', props: { question_type: 'causal' } } });
    expect(made.response.status).toBe(201);
    const result = made.data as { uid: string; node_type: string; edges_created: number };
    expect(result).toMatchObject({ node_type: 'Question', edges_created: 0 });
    // @ts-expect-error `action` takes only the route's actions
    const wrong = await strata.POST('/epistemic/inquiry', { body: { action: 'no_such_action', label: 'x' } });
    expect(wrong.response.status).toBe(400);
  });

  it('reads management answers as typed values: usage figures and key records need no casts', async () => {
    const strata = createStrataClient(t.url, key);
    const usage = await strata.GET('/v1/usage');
    expect(usage.response.status).toBe(200);
    const u = usage.data!;
    // each of these reads compiles only because the document declares the answer's shape
    const figures: { nodes: number; limit: number | null; plan: string; calls: number } = { nodes: u.nodes.used, limit: u.nodes.limit, plan: u.plan, calls: u.llm.calls };
    expect(figures).toMatchObject({ nodes: expect.any(Number), plan: 'free', calls: 0 });
    // @ts-expect-error usage has no such figure
    expect(u.no_such_figure).toBeUndefined();
    const plans = await strata.GET('/v1/billing/plans');
    const free = plans.data!.find((p) => p.id === 'free')!;
    const limit: number | null = free.limits.mcp_connections;
    expect(limit).toEqual(expect.any(Number));
  });

  it('type-checks: the client, its example and its compile-time checks (typed bodies, actions and answers) compile as the package', async () => {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    // the @ts-expect-error lines above are not checked by jest's transform; the package's own type check is
    const run = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', path.join(ROOT, 'packages/client/tsconfig.json')]).then(
      () => ({ code: 0, out: '' }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, out: e.stdout ?? '' }),
    );
    expect(run).toEqual({ code: 0, out: '' });
  }, 180_000);

  it('its committed schema.d.ts is what `npm run client:generate` makes of the running service’s document', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-client-'));
    try {
      const out = path.join(dir, 'schema.d.ts');
      // asynchronously: the child reads /openapi.json from the service running in this process
      await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/generate-client.js'), '--url', t.url, '--output', out]);
      // stale types: run `npm run client:generate` and commit packages/client/src/schema.d.ts
      expect(fs.readFileSync(out, 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'packages/client/src/schema.d.ts'), 'utf8'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
