import { request } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/** What a person opening the service in a browser gets: a start page, Swagger UI, the OpenAPI document. */
describe('GET /, /docs and /openapi.json', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('/ is a short HTML page linking to /docs, /health and /openapi.json, without credentials', async () => {
    const r = await request(t.url, 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const links = [...r.text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(expect.arrayContaining(['/docs', '/health', '/openapi.json']));
    for (const href of ['/docs', '/health', '/openapi.json']) expect((await request(t.url, 'GET', href)).status).toBe(200);
  });

  it('/docs is Swagger UI over /openapi.json, and every file the page loads is served', async () => {
    const r = await request(t.url, 'GET', '/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const scripts = [...r.text.matchAll(/src="([^"]+)"/g)].map((m) => m[1]);
    const styles = [...r.text.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui-standalone-preset.js', '/docs/init.js']);
    expect(styles).toEqual(['/docs/swagger-ui.css']);
    for (const src of scripts) {
      const s = await request(t.url, 'GET', src);
      expect(s.status).toBe(200);
      expect(s.headers.get('content-type')).toMatch(/^text\/javascript/);
    }
    const bundle = await request(t.url, 'GET', '/docs/swagger-ui-bundle.js');
    expect(bundle.text).toContain('SwaggerUIBundle');
    expect((await request(t.url, 'GET', '/docs/init.js')).text).toContain("url: '/openapi.json'");
    const css = await request(t.url, 'GET', '/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    // nothing else of the package is reachable
    expect((await request(t.url, 'GET', '/docs/package.json')).status).toBe(404);
  });

  it('/openapi.json lists the product clients’ aliases as deprecated alternatives (REFERENCE §2.8)', async () => {
    const r = await request(t.url, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = r.body;
    const props = (type: string) => doc.components.schemas[`${type}Props`].properties;
    expect(props('Question').question).toMatchObject({ deprecated: true, description: expect.stringContaining('alias of text') });
    expect(props('Claim').statement).toMatchObject({ deprecated: true });
    expect(props('Organization').canonical_name).toMatchObject({ deprecated: true });
    expect(props('Journal').mood).toEqual({ type: ['string', 'null'] });
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.properties;
    expect(body('/agent/plan').task_uid).toMatchObject({ deprecated: true, description: expect.stringContaining('alias of target_uid') });
    expect(body('/agent/execution').task_uid.description).toContain('alias of execution_uid');
    expect(body('/action/procedure').target_uid).toMatchObject({ deprecated: true });
    expect(body('/action/risk').target_uid.description).toContain('alias of assessed_uid');
  });
});
