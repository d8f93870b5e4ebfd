import { AuthContext, REQUEST_FACTS, authForRequest } from './auth-context';

const cached: AuthContext = {
  org_id: 'org-1',
  principal: { kind: 'api_key', id: 'key-1' },
  credential: 'api_key',
  user_id: null,
  api_key_id: 'key-1',
  role: null,
  scopes: ['read', 'write'],
  bound_agent_id: null,
  space_uids: null,
  project_uids: null,
  plan: 'free',
};

describe('authForRequest', () => {
  it("gives each request its own context carrying that request's facts, leaving the credential's cached one untouched", () => {
    const a = authForRequest(cached, { [REQUEST_FACTS]: { path: '/node' } });
    const b = authForRequest(cached, { [REQUEST_FACTS]: { path: '/batch' } });
    expect(a[REQUEST_FACTS]).toEqual({ path: '/node' });
    expect(b[REQUEST_FACTS]).toEqual({ path: '/batch' });
    expect(cached[REQUEST_FACTS]).toBeUndefined();
    expect({ ...a, [REQUEST_FACTS]: undefined }).toEqual({ ...cached, [REQUEST_FACTS]: undefined });
  });

  it('keeps the facts through a spread (a context derived from the request one) and out of JSON', () => {
    const a = authForRequest(cached, { [REQUEST_FACTS]: { path: '/node' } });
    expect({ ...a, tool_call: { approval_id: null } }[REQUEST_FACTS]).toEqual({ path: '/node' });
    expect(JSON.parse(JSON.stringify(a))).toEqual(cached);
  });

  it('a request without facts (no policy module) gets the credential context itself', () => {
    expect(authForRequest(cached, {})).toBe(cached);
  });
});
