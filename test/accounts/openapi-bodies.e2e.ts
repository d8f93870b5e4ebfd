import { TestApp, startTestApp } from '../support/test-app';
import { request } from '../support/http';

describe('OpenAPI of the management routes', () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await request(t.url, 'GET', '/openapi.json')).body;
  });
  afterAll(() => t.close());

  const bodyOf = (path: string) => {
    const ref = doc.paths[path].post.requestBody.content['application/json'].schema.$ref as string;
    return doc.components.schemas[ref.split('/').pop()!];
  };

  it('describes every management body by its DTO: required fields, types, bounds and enums', () => {
    const key = bodyOf('/v1/api-keys');
    expect(key.required).toEqual(['name', 'scopes']);
    expect(key.properties.name).toMatchObject({ type: 'string', maxLength: 200 });
    expect(key.properties.scopes).toMatchObject({ type: 'array', items: { type: 'string', enum: ['read', 'write'] } });
    expect(key.properties.expires_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(key.properties.space_uids).toMatchObject({ type: 'array', maxItems: 1000 });
    expect(bodyOf('/v1/api-keys/{id}/rotate').properties.overlap_seconds).toMatchObject({ type: 'integer', minimum: 0 });
    expect(bodyOf('/v1/auth/signup')).toMatchObject({ required: ['email', 'password'], properties: { password: { minLength: 10, maxLength: 1024 } } });
    expect(bodyOf('/v1/auth/login').required).toEqual(['email', 'password']);
    expect(bodyOf('/v1/auth/refresh').required).toEqual(['refresh_token']);
    expect(bodyOf('/v1/orgs').required).toEqual(['name']);
    expect(bodyOf('/v1/orgs/{org_id}/members').properties.role.enum).toEqual(['owner', 'admin', 'member', 'viewer']);
    expect(bodyOf('/v1/billing/subscribe').properties.plan.enum).toContain('pro');
  });
});
