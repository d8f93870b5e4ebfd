import { describe, expect, it, vi } from 'vitest';
import { mcpConnections } from '../src/areas/mcp';
import { alerts, button, buttons, check, ctxFor, FakeApi, fill, labelled, page, refusal, render, text } from './support/fake-api';

const conn = (over: Record<string, unknown> = {}) => ({
  id: 'c1', name: 'Weather', url: 'https://mcp.example.com/mcp', status: 'active', server_info: { name: 'weather', version: '1.0' },
  auth: { type: 'oauth', configured: true, hint: null, header_names: [], oauth: { authorization_server: 'https://auth.example.com', scopes: ['tools'] } },
  authorization: null, approval_mode: 'always', tool_approvals: {}, approval_timeout_s: 3600, call_timeout_s: 60, tools_count: 2, unacknowledged_drift_count: 1,
  last_sync_at: '2030-01-15T00:00:00Z', last_error: null, created_at: '2030-01-14T00:00:00Z', ...over,
});
const pendingAuth = { url: 'https://auth.example.com/authorize?state=abc', expires_at: '2030-01-15T00:10:00Z' };

describe('the MCP connections page', () => {
  it('adds an OAuth connection and leads to the authorization server, coming back here', async () => {
    const api = new FakeApi();
    const list: unknown[] = [];
    api.on('get', '/v1/mcp/connections', () => page(list));
    api.on('post', '/v1/mcp/connections', () => {
      list.push(conn({ status: 'pending_auth', authorization: pendingAuth, tools_count: 0, unacknowledged_drift_count: 0 }));
      return list[0];
    });
    const main = await render(mcpConnections, ctxFor(api, 'owner'));
    fill(labelled(main, 'Name'), 'Weather');
    fill(labelled(main, 'Server URL'), 'https://mcp.example.com/mcp');
    fill(labelled(main, 'Authentication'), 'oauth');
    expect(labelled(main, /^Bearer token/).closest('.field')!.hasAttribute('hidden')).toBe(true);
    fill(labelled(main, 'Scopes (optional, space separated)'), 'tools read');
    button(main, 'Add connection').click();
    await vi.waitFor(() => expect(main.querySelector('#authorize-link')?.getAttribute('href')).toBe(pendingAuth.url));
    expect(api.to('post', '/v1/mcp/connections')[0].body).toEqual({ name: 'Weather', url: 'https://mcp.example.com/mcp', auth: { type: 'oauth', scopes: ['tools', 'read'] }, approval_mode: 'always', return_url: '/app/mcp' });
    expect(text(main.querySelector('#mcp-outcome'))).toContain('Authorize Weather at auth.example.com');
  });

  it('reports the return from the authorization server', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/mcp/connections', page([conn({ unacknowledged_drift_count: 0 })]));
    const main = await render(mcpConnections, ctxFor(api, 'viewer'), {}, 'mcp_connection=c1&status=active');
    expect(text(main.querySelector('#mcp-outcome'))).toBe('Weather is connected: 2 tools.');
    expect(buttons(main, /^(Sync|Reauthorize|Disconnect|Save)/)).toEqual([]);
  });

  it('reauthorizes, changes the approval mode and accepts the drift, and disconnects', async () => {
    const api = new FakeApi();
    let c = conn();
    api.on('get', '/v1/mcp/connections', () => page(c.status === 'disconnected' ? [] : [c]));
    api.on('post', '/v1/mcp/connections/{id}/reauthorize', () => ({ ...c, authorization: pendingAuth }));
    api.on('patch', '/v1/mcp/connections/{id}', (call) => (c = { ...c, ...(call.body as object), unacknowledged_drift_count: 0 }));
    api.on('delete', '/v1/mcp/connections/{id}', () => {
      c = { ...c, status: 'disconnected' };
      return { id: 'c1', status: 'disconnected', disconnected_at: '2030-01-15T00:00:00Z' };
    });
    const main = await render(mcpConnections, ctxFor(api, 'admin'));
    button(main, 'Reauthorize Weather').click();
    await vi.waitFor(() => expect(main.querySelector('#authorize-link')).not.toBeNull());
    expect(api.to('post', '/v1/mcp/connections/{id}/reauthorize')[0]).toMatchObject({ params: { id: 'c1' }, body: { return_url: '/app/mcp' } });

    const form = main.querySelector('td details form')!;
    fill(labelled(form, 'Approve calls'), 'on_drift');
    check(labelled<HTMLInputElement>(form, 'Accept the 1 changed tool(s) as they are now'));
    button(form, 'Save').click();
    await vi.waitFor(() => expect(text(main.querySelector('#mcp-outcome'))).toBe('Weather: saved.'));
    expect(api.to('patch', '/v1/mcp/connections/{id}')[0].body).toEqual({ approval_mode: 'on_drift', acknowledge_drift: 'all' });

    vi.stubGlobal('confirm', () => true);
    button(main, 'Disconnect Weather').click();
    await vi.waitFor(() => expect(text(main.querySelector('#mcp-outcome'))).toBe('Weather is disconnected.'));
  });

  it('replaces a bearer token, and a token the server refuses shows which check failed', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/mcp/connections', page([conn({ auth: { type: 'bearer', configured: true, hint: '…abcd', header_names: [], oauth: null }, unacknowledged_drift_count: 0 })]));
    api.on('post', '/v1/mcp/connections/{id}/reauthorize', Object.assign(refusal(422, 'mcp_check_failed', 'the server refused the credentials'), { body: { error: 'the server refused the credentials', code: 'mcp_check_failed', checks: [{ name: 'protocol', status: 'fail', detail: 'HTTP 401' }] } }));
    const main = await render(mcpConnections, ctxFor(api, 'owner'));
    fill(labelled(main, 'New bearer token for Weather'), 'a-new-token-123456');
    button(main, 'Replace token').click();
    await vi.waitFor(() => expect(alerts(main)).toEqual(['the server refused the credentials — protocol: HTTP 401']));
    expect(api.to('post', '/v1/mcp/connections/{id}/reauthorize')[0].body).toEqual({ auth: { type: 'bearer', token: 'a-new-token-123456' } });
  });
});
