import { describe, expect, it, vi } from 'vitest';
import { keys } from '../src/areas/keys';
import { alerts, button, check, ctxFor, FakeApi, fill, labelled, page, refusal, render, text } from './support/fake-api';

const key = (id: string, name: string, over: Record<string, unknown> = {}) => ({
  id, name, prefix: `sk_${id}`, scopes: ['read'], space_uids: null, project_uids: null, agent_id: null, created_at: '2030-01-15T00:00:00Z',
  last_used_at: null, expires_at: null, status: 'active', replaced_by: null, overlap_until: null, ...over,
});

describe('the API keys page', () => {
  it('creates a write key fenced to a Project and shows its secret once', async () => {
    const api = new FakeApi();
    const list: unknown[] = [];
    api.on('get', '/v1/api-keys', () => page(list));
    api.on('post', '/v1/api-keys', (c) => {
      const body = c.body as { name: string };
      list.push(key('k1', body.name, { scopes: ['read', 'write'], project_uids: ['n_proj'] }));
      return { ...(list[0] as object), key: 'sk_k1_secret' };
    });
    const main = await render(keys, ctxFor(api, 'owner'));
    expect(text(main)).toContain('No keys yet: create one below.');
    fill(labelled(main, 'Name'), 'ingest bot');
    check(labelled(main, 'write'));
    fill(labelled(main, 'Projects (uids, optional)'), 'n_proj');
    button(main, 'Create key').click();
    await vi.waitFor(() => expect(labelled(main, 'The new key').value).toBe('sk_k1_secret'));
    expect(api.to('post', '/v1/api-keys')[0].body).toEqual({ name: 'ingest bot', scopes: ['read', 'write'], project_uids: ['n_proj'] });
    expect(text(main.querySelector('table'))).toContain('Projects n_proj');
  });

  it('rotates a key, shows its activity, and revokes it after asking', async () => {
    const api = new FakeApi();
    let status = 'active';
    api.on('get', '/v1/api-keys', () => page([key('k1', 'bot', { status })]));
    api.on('post', '/v1/api-keys/{id}/rotate', () => ({ ...key('k2', 'bot'), key: 'sk_k2_secret', previous_key: { overlap_until: '2030-01-16T00:00:00Z' } }));
    api.on('get', '/v1/api-keys/{id}/activity', { key_id: 'k1', items: [{ type: 'request', at: '2030-01-15T01:00:00Z', method: 'GET', route: '/stats', status: 200 }] });
    api.on('delete', '/v1/api-keys/{id}', () => {
      status = 'revoked';
      return { id: 'k1', status: 'revoked' };
    });
    const main = await render(keys, ctxFor(api, 'admin'));
    button(main, 'Rotate bot').click();
    await vi.waitFor(() => expect(labelled(main, 'The new key').value).toBe('sk_k2_secret'));
    expect(text(main.querySelector('.notice'))).toContain('the old one works until 2030-01-16 00:00:00Z');

    button(main, 'Activity of bot').click();
    await vi.waitFor(() => expect(text(main.querySelector('#key-activity'))).toContain('GET /stats → 200'));

    vi.stubGlobal('confirm', () => false);
    button(main, 'Revoke bot').click();
    expect(api.to('delete', '/v1/api-keys/{id}')).toEqual([]);
    vi.stubGlobal('confirm', () => true);
    button(main, 'Revoke bot').click();
    await vi.waitFor(() => expect(text(main.querySelector('.status'))).toBe('revoked'));
    expect(api.to('delete', '/v1/api-keys/{id}')[0].params).toEqual({ id: 'k1' });
  });

  it('shows the server’s message when a key is refused', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/api-keys', page([]));
    api.on('post', '/v1/api-keys', refusal(400, 'invalid_field', 'expires_at must be in the future'));
    const main = await render(keys, ctxFor(api, 'owner'));
    fill(labelled(main, 'Name'), 'late');
    button(main, 'Create key').click();
    await vi.waitFor(() => expect(alerts(main)).toEqual(['expires_at must be in the future']));
  });

  it('is an owner and admin page: the shell hides it from members', () => {
    expect(keys.roles).toEqual(['owner', 'admin']);
  });
});
