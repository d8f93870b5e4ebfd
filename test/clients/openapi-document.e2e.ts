import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { WebSocket } from 'ws';
import { PROPS_ADDITIONS, PROPS_ALIASES, TRIGGER_ALIASES } from '@strata/domain/catalogue';
import { COGNITIVE_ENDPOINTS } from '@strata/domain/cognitive';
import { request } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

/** The published document is a valid OpenAPI 3.1 document, so generators and validators accept it as is. */
// one service for the whole file: every suite reads the same document
let t: TestApp;
beforeAll(async () => (t = await startTestApp()));
afterAll(() => t.close());

describe('GET /openapi.json', () => {
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
        // a WebSocket upgrade answers 101 and nothing else on success
        if (op.responses?.['101']) {
          if (ok.length) missing.push(`${method} ${path}: a 2xx beside its 101`);
          continue;
        }
        // JSON, or a stream or page the route declares as such (an SSE stream, an OAuth callback's HTML page)
        const answered = (r: any) => r.content?.['application/json'] || r.content?.['text/event-stream'] || r.content?.['text/html'];
        if (ok.length === 0 || ok.some(([code, r]) => code !== '204' && !answered(r))) missing.push(`${method} ${path}: answer`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('declares a typed answer for every operation: no open placeholder is left, and the one WebSocket declares its 101', async () => {
    const doc = (await request(t.url, 'GET', '/openapi.json')).body;
    const open: string[] = [];
    const upgrades: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (method === 'parameters') continue;
        operations++;
        if (op.responses?.['101']) upgrades.push(`${method} ${path}`);
        for (const [code, r] of Object.entries<any>(op.responses ?? {})) {
          if (!/^2/.test(code) || code === '204') continue;
          const schemas = Object.values<any>(r.content ?? {}).map((c) => c.schema);
          // the open shape addOpenShapes gives what nothing describes: an untyped answer
          if (schemas.some((s) => s === undefined || JSON.stringify(s).includes('see the interface spec'))) open.push(`${method} ${path} ${code}`);
        }
      }
    }
    expect(operations).toBeGreaterThan(150);
    expect(open).toEqual([]);
    expect(upgrades).toEqual(['get /v1/agents/activity/ws']);
  });

  it('the WebSocket operation answers what it declares: 101 on an upgrade, 426 with the error shape on a plain GET', async () => {
    const op = (await request(t.url, 'GET', '/openapi.json')).body.paths['/v1/agents/activity/ws'].get;
    expect(Object.keys(op.responses).sort()).toEqual(['101', '426', '503']);
    const plain = await request(t.url, 'GET', '/v1/agents/activity/ws');
    expect(plain.status).toBe(426);
    expect(plain.body).toEqual({ error: expect.any(String), code: 'upgrade_required' });
    expect(Object.keys(op.responses['426'].content['application/json'].schema.properties)).toEqual(['error', 'code']);
    // the upgrade itself (credentials are checked on the socket, after it)
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/v1/agents/activity/ws');
      ws.on('upgrade', (res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('error', reject);
    });
    expect(status).toBe(101);
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

describe('the §2.8 aliases in /openapi.json', () => {
  let doc: any;
  beforeAll(async () => {
    doc = (await request(t.url, 'GET', '/openapi.json')).body;
  });

  it('every props-alias row is a deprecated property of its type’s props schema, beside the field it stands for', () => {
    const missing: string[] = [];
    for (const r of PROPS_ALIASES)
      for (const type of r.types) {
        const props = doc.components.schemas[`${type}Props`].properties;
        if (props[r.alias]?.deprecated !== true) missing.push(`${type}.${r.alias}`);
        if (r.field !== null && !props[r.field]) missing.push(`${type}.${r.field}`);
      }
    expect(missing).toEqual([]);
  });

  it('every trigger-alias row is a deprecated property of its route’s body (inside props for props.* aliases)', () => {
    const missing: string[] = [];
    for (const r of TRIGGER_ALIASES) {
      const body = doc.paths[`/${r.path}`].post.requestBody.content['application/json'].schema;
      if (r.alias.startsWith('props.')) {
        const key = r.alias.slice('props.'.length);
        const alternatives = body.properties.props.anyOf ?? [body.properties.props];
        if (!alternatives.some((a: any) => a.properties?.[key]?.deprecated === true)) missing.push(`/${r.path} ${r.alias}`);
      } else if (body.properties[r.alias]?.deprecated !== true || !String(body.properties[r.alias].description).includes(`alias of ${r.field}`)) missing.push(`/${r.path} ${r.alias}`);
    }
    expect(missing).toEqual([]);
    const approved = doc.paths['/agent/governance'].post.requestBody.content['application/json'].schema.properties.props.anyOf.find((a: any) => a.properties?.approved);
    expect(approved.properties.approved).toMatchObject({ type: 'boolean', deprecated: true });
  });

  it('the props additions are plain fields of their types, not deprecated', () => {
    for (const [type, fields] of Object.entries(PROPS_ADDITIONS))
      for (const f of fields.split(';').map((x) => x.trim().split(' ')[0])) {
        const p = doc.components.schemas[`${type}Props`].properties[f];
        expect([type, f, p?.deprecated]).toEqual([type, f, undefined]);
        expect(p.type).toContain('string');
      }
  });

  it('/retrieve, /traverse, /evolve and the cognitive routes declare the strata-warnings header', () => {
    for (const path of ['/retrieve', '/traverse', '/evolve', '/agent/governance', '/epistemic/argument'])
      expect(doc.paths[path].post.responses['200'].headers['strata-warnings']).toMatchObject({ schema: { type: 'string' } });
  });
});

function validate(json: string): { valid: boolean; version: string; errors: unknown[] } {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'validate-openapi.mjs')], { input: json, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
