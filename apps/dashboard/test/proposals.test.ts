import { describe, expect, it, vi } from 'vitest';
import { proposals } from '../src/areas/proposals';
import { alerts, button, ctxFor, FakeApi, labelled, fill, page, refusal, render, text, check } from './support/fake-api';

const proposal = (id: string, name: string, status = 'pending') => ({
  id, schema_id: 's1', proposal_type: 'create_object', object_type: 'Supplier', source_uids: ['n_src'],
  changes_json: { adds: [{ canonical_name: name, fields: { country: 'FR' } }] }, rationale: 'seen in two reports', confidence: 0.8,
  risk_level: 'low', review_status: status, applied_error: null, proposed_node_uid: null, created_at: '2030-01-15T00:00:00Z',
});

describe('the ontology proposals page', () => {
  it('lists the pending proposals and approves one with its name edited', async () => {
    const api = new FakeApi();
    let items = [proposal('p1', 'Acme'), proposal('p2', 'Globex')];
    api.on('get', '/v1/ontology/proposals', () => page(items));
    api.on('post', '/v1/ontology/proposals/{id}/approve', (c) => {
      items = items.filter((p) => p.id !== c.params.id);
      return { ...proposal(String(c.params.id), 'Acme Corp'), review_status: 'applied' };
    });
    const main = await render(proposals, ctxFor(api, 'owner'));
    expect(api.to('get', '/v1/ontology/proposals')[0].query).toMatchObject({ status: 'pending' });
    expect([...main.querySelectorAll('.proposal-name')].map(text)).toEqual(['Acme', 'Globex']);

    const acme = main.querySelector('[data-id=p1]')!;
    fill(labelled(acme, 'Name of proposal Acme'), 'Acme Corp');
    button(acme, 'Approve').click();
    await vi.waitFor(() => expect([...main.querySelectorAll('.proposal-name')].map(text)).toEqual(['Globex']));
    expect(api.to('post', '/v1/ontology/proposals/{id}/approve')).toEqual([expect.objectContaining({ params: { id: 'p1' }, body: { edits: { canonical_name: 'Acme Corp' } } })]);
  });

  it('rejects the selected proposals in one batch and shows what failed with the server’s message', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/ontology/proposals', page([proposal('p1', 'Acme'), proposal('p2', 'Globex')]));
    api.on('post', '/v1/ontology/proposals/batch-reject', { results: [{ id: 'p1', review_status: 'rejected' }, { id: 'p2', review_status: 'pending', error: 'proposal is locked' }], succeeded: 1, failed: 1 });
    const main = await render(proposals, ctxFor(api, 'admin'));
    check(labelled(main, 'Select Acme'));
    check(labelled(main, 'Select Globex'));
    button(main, 'Reject selected').click();
    await vi.waitFor(() => expect(alerts(main)).toEqual(['1 done, 1 failed: proposal is locked']));
    expect(api.to('post', '/v1/ontology/proposals/batch-reject')[0].body).toEqual({ ids: ['p1', 'p2'] });
  });

  it('shows the server’s refusal on the proposal it concerns', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/ontology/proposals', page([proposal('p1', 'Acme')]));
    api.on('post', '/v1/ontology/proposals/{id}/reject', refusal(403, 'insufficient_role', 'only owners and admins review proposals'));
    const main = await render(proposals, ctxFor(api, 'member'));
    button(main, 'Reject').click();
    await vi.waitFor(() => expect(alerts(main.querySelector('[data-id=p1]')!)).toEqual(['only owners and admins review proposals']));
  });
});
