import { describe, expect, it, vi } from 'vitest';
import { review } from '../src/areas/review';
import { alerts, button, buttons, ctxFor, FakeApi, fill, labelled, page, refusal, render, text } from './support/fake-api';

const approval = (id: string, status = 'pending') => ({
  id, status, kind: 'mcp_tool', connection_name: 'Weather', tool_name: 'forecast', arguments: { city: 'Paris' },
  reasons: [{ source: 'connection_mode' }], agent_id: 'ag1', agent_name: 'Scout', session_id: 'se1',
  requested_at: '2030-01-15T10:00:00Z', expires_at: '2030-01-15T11:00:00Z',
});
const exception = (id: string, status = 'open') => ({
  id, kind: 'claim_unsupported', severity: 'medium', status, subject: { uid: 'n_claim', type: 'node', node_type: 'Claim', edge_type: null, label: 'Tiles crack' },
  detail: {}, project_uids: [], space_uids: [], task_uids: [], first_detected_at: '2030-01-14T00:00:00Z', last_changed_at: '2030-01-14T00:00:00Z',
  acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolution: null, reopen_count: 0,
});
const requestNode = (uid: string) => ({ uid, label: 'Publish the report', node_type: 'Approval', layer: 'agent', summary: null, props: { status: 'pending', requested_at: '2030-01-15T09:00:00Z', target_uid: 'n_plan', target_type: 'Plan', reason: 'needs sign-off' }, version: 1, created_at: 0, updated_at: 0, tombstone_at: null });

/** a service with one of everything waiting */
function service() {
  const api = new FakeApi();
  let approvals = [approval('ap1')];
  let exceptions = [exception('ex1')];
  let requests = [requestNode('n_req'), requestNode('ap1')];
  let asking = true;
  api.on('get', '/v1/ontology/proposals', page([]));
  api.on('get', '/v1/mcp/approvals', () => page(approvals));
  api.on('post', '/v1/mcp/approvals/{id}/resolve', (c) => {
    approvals = [];
    requests = requests.filter((n) => n.uid !== c.params.id);
    return { ...approval(String(c.params.id)), status: 'approved' };
  });
  api.on('get', '/v1/agents/sessions', () => page(asking ? [{ id: 'se2', agent_id: 'ag1', title: 'Morning run', status: 'requires_action' }] : []));
  api.on('get', '/v1/agents/sessions/{sid}/pending-input', { pending: true, request: { request_id: 'rq1', run_id: 'r1', prompt: 'Which supplier?', options: ['Acme', 'Globex'], requested_at: '2030-01-15T10:00:00Z', expires_at: '2030-01-16T10:00:00Z' } });
  api.on('post', '/v1/agents/sessions/{sid}/respond', () => {
    asking = false;
    return { request_id: 'rq1', run_id: 'r1', run_status: 'running' };
  });
  api.on('get', '/approvals/pending', () => requests);
  api.on('post', '/agent/governance', (c) => {
    requests = requests.filter((n) => n.uid !== (c.body as { approval_uid: string }).approval_uid);
    return { uid: 'n_req', status: 'approved', approved: true };
  });
  api.on('get', '/v1/knowledge-health/exceptions', () => ({ items: exceptions, has_more: false, limit: 50, next_cursor: null, groups: [] }));
  api.on('post', '/agent/plan', () => {
    exceptions = [];
    return { uid: 'n_task' };
  });
  return api;
}

describe('the review queue', () => {
  it('shows every queue in one place, approval requests without the tool calls listed above them', async () => {
    const api = service();
    const main = await render(review, ctxFor(api, 'owner'));
    expect([...main.querySelectorAll('h2')].map(text)).toEqual(['Ontology proposals (0)', 'Tool calls waiting for approval (1)', 'Questions from agents (1)', 'Approval requests (1)', 'Knowledge Health exceptions (1)']);
    expect(api.to('get', '/v1/mcp/approvals')[0].query).toMatchObject({ status: 'pending', kind: 'all' });
    expect(text(main.querySelector('.approval'))).toContain('Weather · forecast');
    expect(text(main.querySelector('.question'))).toContain('Which supplier?');
    expect([...main.querySelectorAll('.request')].map((e) => e.getAttribute('data-id'))).toEqual(['n_req']);
  });

  it('allows a tool call for the session, answers an agent’s question with an option, decides a request and acknowledges an exception', async () => {
    const api = service();
    const main = await render(review, ctxFor(api, 'owner'));

    const call = main.querySelector('.approval')!;
    fill(labelled(call, 'Allow Weather · forecast for'), 'session');
    button(call, 'Allow').click();
    await vi.waitFor(() => expect(text(main.querySelector('#review-tool-calls'))).toContain('No tool call is waiting.'));
    expect(api.to('post', '/v1/mcp/approvals/{id}/resolve')[0]).toMatchObject({ params: { id: 'ap1' }, body: { decision: 'allow', scope: 'session' } });

    const question = main.querySelector('.question')!;
    button(question, 'Globex').click();
    await vi.waitFor(() => expect(labelled<HTMLTextAreaElement>(question, /^Your answer/).value).toBe('Globex'));
    button(question, 'Answer').click();
    await vi.waitFor(() => expect(text(main.querySelector('#review-questions'))).toContain('No agent is waiting for an answer.'));
    expect(api.to('post', '/v1/agents/sessions/{sid}/respond')[0]).toMatchObject({ params: { sid: 'se2' }, body: { response: 'Globex', request_id: 'rq1' } });

    const req = main.querySelector('.request')!;
    fill(labelled(req, 'Reason for Publish the report'), 'not yet');
    button(req, 'Deny').click();
    await vi.waitFor(() => expect(text(main.querySelector('#review-requests'))).toContain('No approval requests.'));
    expect(api.to('post', '/agent/governance')[0].body).toEqual({ action: 'resolve_approval', approval_uid: 'n_req', approved: false, reason: 'not yet' });

    button(main, /^Acknowledge claim unsupported/).click();
    await vi.waitFor(() => expect(text(main.querySelector('#review-exceptions'))).toContain('No exceptions'));
    expect(api.to('post', '/agent/plan')[0].body).toEqual({ action: 'create_task', label: 'Look into claim unsupported: Tiles crack', related_uids: ['n_claim'] });
  });

  it('gives a viewer no controls, and a section the plan does not allow says why while the others work', async () => {
    const api = service();
    api.on('get', '/v1/agents/sessions', refusal(403, 'plan_required', 'Managed agents need the Pro plan.'));
    const main = await render(review, ctxFor(api, 'viewer'));
    expect(text(main.querySelector('#review-questions'))).toContain('Managed agents need the Pro plan.');
    expect(buttons(main, /^(Allow|Deny|Approve|Answer|Acknowledge)/)).toEqual([]);
    expect(text(main.querySelector('#review-tool-calls'))).toContain('Weather · forecast');
  });

  it('shows the server’s message when a decision is refused', async () => {
    const api = service();
    api.on('post', '/v1/mcp/approvals/{id}/resolve', refusal(409, 'invalid_transition', 'approval ap1 is expired, not pending'));
    const main = await render(review, ctxFor(api, 'member'));
    button(main.querySelector('.approval')!, 'Deny').click();
    await vi.waitFor(() => expect(alerts(main.querySelector('.approval')!)).toEqual(['approval ap1 is expired, not pending']));
    expect(buttons(main.querySelector('#review-requests')!, 'Approve')).toEqual([]);
  });
});
