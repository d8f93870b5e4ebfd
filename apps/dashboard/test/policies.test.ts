import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api';
import { policies } from '../src/areas/policies';
import { alerts, button, buttons, ctxFor, FakeApi, fill, labelled, page, render, text } from './support/fake-api';

const policy = (over: Record<string, unknown> = {}) => ({
  uid: 'n_pol', name: 'Claims under review', description: null, status: 'shadow', effect: 'deny', priority: 0, match: { node_types: ['Claim'] },
  version: 1, status_reason: null, updated_at: '2030-01-15T00:00:00Z', ...over,
});

describe('the policies page', () => {
  it('creates a shadow policy and publishes it with the version it read', async () => {
    const api = new FakeApi();
    let list: ReturnType<typeof policy>[] = [];
    api.on('get', '/v1/governance/policies', () => page(list));
    api.on('post', '/v1/governance/policies', (c) => {
      list = [policy({ ...(c.body as object) })];
      return list[0];
    });
    api.on('patch', '/v1/governance/policies/{policy_uid}', (c) => {
      list = [policy({ status: (c.body as { status: string }).status, version: 2 })];
      return list[0];
    });
    const main = await render(policies, ctxFor(api, 'owner'));
    fill(labelled(main, 'Name'), 'Claims under review');
    button(main, 'Create policy').click();
    await vi.waitFor(() => expect(text(main.querySelector('[data-policy=n_pol]'))).toBe('shadow'));
    expect(api.to('post', '/v1/governance/policies')[0].body).toEqual({ name: 'Claims under review', effect: 'deny', priority: 0, match: { node_types: ['Claim'] }, status: 'shadow' });
    expect(main.querySelector('a[aria-label="Decisions of Claims under review"]')!.getAttribute('href')).toBe('/app/governance/audit?policy_uid=n_pol&kind=policy_decision');

    button(main, 'Publish Claims under review').click();
    await vi.waitFor(() => expect(text(main.querySelector('[data-policy=n_pol]'))).toBe('published'));
    expect(api.to('patch', '/v1/governance/policies/{policy_uid}')[0]).toMatchObject({ params: { policy_uid: 'n_pol' }, body: { status: 'published', expected_version: 1 } });
  });

  it('shows the server’s message and the paths it names, and a match that is not JSON is caught before sending', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/governance/policies', page([]));
    api.on('post', '/v1/governance/policies', new ApiError(422, 'invalid_policy', 'the match names unknown node types', { error: 'the match names unknown node types', code: 'invalid_policy', errors: [{ path: 'match.node_types[0]', message: 'NoSuchType is not a node type' }] }));
    const main = await render(policies, ctxFor(api, 'admin'));
    fill(labelled(main, 'Name'), 'Broken');
    fill(labelled(main, 'Match (JSON)'), '{ not json');
    button(main, 'Create policy').click();
    await vi.waitFor(() => expect(alerts(main)).toEqual(['The match is not valid JSON.']));
    expect(api.to('post', '/v1/governance/policies')).toEqual([]);

    fill(labelled(main, 'Match (JSON)'), '{"node_types": ["NoSuchType"]}');
    button(main, 'Create policy').click();
    await vi.waitFor(() => expect(alerts(main)).toEqual(['the match names unknown node types — match.node_types[0]: NoSuchType is not a node type']));
  });

  it('gives a member the policies and their decisions, without the controls to change them', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/governance/policies', page([policy()]));
    const main = await render(policies, ctxFor(api, 'member'));
    expect(text(main.querySelector('table'))).toContain('Claims under review');
    expect(buttons(main, /^(Publish|Shadow|Reject|Create policy|Sync to the graph)/)).toEqual([]);
    expect(text(main)).toContain('Owners and admins create and change policies.');
  });
});
