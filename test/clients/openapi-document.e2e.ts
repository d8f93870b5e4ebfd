import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { COGNITIVE_ENDPOINTS } from '@strata/domain/cognitive';
import { request } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

/** The published document is a valid OpenAPI 3.1 document, so generators and validators accept it as is. */
describe('GET /openapi.json', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('is OpenAPI 3.1 and validates against the OpenAPI schema', async () => {
    const r = await request(t.url, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.text).not.toContain('"nullable"');
    const res = validate(r.text);
    // the errors themselves on failure, not just "false"
    expect(res.errors).toEqual([]);
    expect(res.valid).toBe(true);
    expect(res.version).toBe('3.1');
  });

  it('gives every route an answer (JSON unless it declares a stream or a page) and every write route a body, so the typed client can call each one', async () => {
    const doc = (await request(t.url, 'GET', '/openapi.json')).body;
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (['post', 'put', 'patch'].includes(method) && !op.requestBody?.content?.['application/json']) missing.push(`${method} ${path}: body`);
        const ok = Object.entries<any>(op.responses ?? {}).filter(([code]) => /^2/.test(code));
        // JSON, or a stream or page the route declares as such (an SSE stream, an OAuth callback's HTML page)
        const answered = (r: any) => r.content?.['application/json'] || r.content?.['text/event-stream'] || r.content?.['text/html'];
        if (ok.length === 0 || ok.some(([code, r]) => code !== '204' && !answered(r))) missing.push(`${method} ${path}: answer`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('derives each cognitive route’s body from its endpoint definition and the catalogue', async () => {
    const doc = (await request(t.url, 'GET', '/openapi.json')).body;
    for (const e of COGNITIVE_ENDPOINTS) {
      const op = doc.paths[`/${e.path}`].post;
      const body = op.requestBody.content['application/json'].schema;
      if (!e.single) expect(body.properties.action.enum).toEqual(Object.keys(e.actions));
      for (const def of Object.values(e.actions)) for (const t of def.creates?.triggers ?? []) expect(body.properties).toHaveProperty(t.field);
      expect(op.responses['200'].content['application/json'].schema.anyOf).toContainEqual({ $ref: '#/components/schemas/CreateResult' });
    }
    // a create's props are its type's props, every field optional (the action fills defaults)
    const plan = doc.paths['/agent/plan'].post.requestBody.content['application/json'].schema;
    const planProps = plan.properties.props.anyOf ?? [plan.properties.props];
    expect(planProps.map((p: any) => p.title)).toContain('PlanProps (partial)');
    for (const p of planProps) expect(p.required).toBeUndefined();
    // the product clients' trigger names are deprecated alternatives of the route's fields
    expect(plan.properties.task_uid).toMatchObject({ deprecated: true });
    // and the props aliases in the type's props
    const inquiry = doc.paths['/epistemic/inquiry'].post.requestBody.content['application/json'].schema;
    const question = inquiry.properties.props.anyOf.find((p: any) => p.title === 'QuestionProps (partial)');
    expect(question.properties.question).toMatchObject({ deprecated: true });
    // graph routes: edge props from the catalogue's edge types
    const edge = doc.components.schemas.CreateEdgeRequest;
    expect(edge.properties.props.anyOf).toContainEqual({ $ref: '#/components/schemas/SupportsEdgeProps' });
    expect(doc.paths['/node/{uid}'].patch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpdateNodeRequest' });
  });
});

function validate(json: string): { valid: boolean; version: string; errors: unknown[] } {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'validate-openapi.mjs')], { input: json, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
