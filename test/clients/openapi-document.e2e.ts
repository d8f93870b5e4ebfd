import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
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
});

function validate(json: string): { valid: boolean; version: string; errors: unknown[] } {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'validate-openapi.mjs')], { input: json, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
