import { describe, expect, it, vi } from 'vitest';
import { health } from '../src/areas/health';
import { button, buttons, ctxFor, FakeApi, fill, labelled, render, text } from './support/fake-api';

const summary = {
  generated_at: '2030-01-15T00:00:00Z', window: { days: 30, since: '2029-12-16T00:00:00Z', until: '2030-01-15T00:00:00Z' }, state: 'attention',
  reasons: [{ metric: 'high_severity_exceptions', value: 1, threshold: 1, level: 'attention' }],
  evidence_completeness: { value: 0.75, claims: 4, evidenced: 2, sourced_only: 2, unsupported: 0 },
  counts: { nodes: 40, edges: 61, claims: 4, evidence: 2, documents: 1, chunks: 3, projects: 1, spaces: 0 },
  activity: { nodes_created: 40, edges_created: 61, documents_created: 1, chunks_completed: 2, chunks_failed: 1, exceptions_opened: 1, exceptions_resolved: 0 },
  exceptions: { open: 1, acknowledged: 0, by_kind: { chunk_failed: { severity: 'high', open: 1, acknowledged: 0 } } },
};
const ex = (id: string, over: Record<string, unknown> = {}) => ({
  id, kind: 'chunk_failed', severity: 'high', status: 'open', subject: { uid: `n_${id}`, type: 'node', node_type: 'Chunk', edge_type: null, label: `chunk ${id}` },
  detail: { document_uid: 'n_doc' }, project_uids: [], space_uids: [], task_uids: [], first_detected_at: '2030-01-14T00:00:00Z', last_changed_at: '2030-01-14T00:00:00Z',
  acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolution: null, reopen_count: 0, ...over,
});

describe('the Knowledge Health page', () => {
  it('shows the state and why, evidence completeness and the exceptions, page after page', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/knowledge-health/summary', summary);
    api.on('get', '/v1/knowledge-health/exceptions', (c) => (c.query.cursor
      ? { items: [ex('b')], has_more: false, limit: 50, next_cursor: null, groups: [] }
      : { items: [ex('a')], has_more: true, limit: 50, next_cursor: 'cur1', groups: [] }));
    const main = await render(health, ctxFor(api, 'member'), {}, 'days=7&severity=high');
    expect(api.to('get', '/v1/knowledge-health/summary')[0].query).toEqual({ days: '7' });
    expect(api.to('get', '/v1/knowledge-health/exceptions')[0].query).toMatchObject({ status: 'open,acknowledged', severity: 'high' });
    expect(text(main.querySelector('#health-state'))).toBe('attention');
    expect(text(main.querySelector('.reasons'))).toBe('high severity exceptions: 1 (attention at 1)');
    expect(text(main.querySelector('#evidence-completeness'))).toBe('75%');
    button(main, 'More').click();
    await vi.waitFor(() => expect(main.querySelectorAll('[data-exception]').length).toBe(2));
    expect(api.to('get', '/v1/knowledge-health/exceptions')[1].query).toMatchObject({ cursor: 'cur1', severity: 'high' });
  });

  it('acknowledges through a Task on the subject (an edge’s: its source node), and the filters navigate', async () => {
    const api = new FakeApi();
    let acknowledged = false;
    api.on('get', '/v1/knowledge-health/summary', summary);
    api.on('get', '/v1/knowledge-health/exceptions', () => ({
      items: [ex('c', { kind: 'contradiction_unresolved', severity: 'medium', status: acknowledged ? 'acknowledged' : 'open', task_uids: acknowledged ? ['n_task'] : [], subject: { uid: 'e_1', type: 'edge', node_type: null, edge_type: 'Contradicts', label: null }, detail: { from_uid: 'n_from', to_uid: 'n_to' } })],
      has_more: false, limit: 50, next_cursor: null, groups: [],
    }));
    api.on('post', '/agent/plan', () => {
      acknowledged = true;
      return { uid: 'n_task' };
    });
    const ctx = ctxFor(api, 'owner');
    const main = await render(health, ctx);
    button(main, /^Acknowledge contradiction unresolved/).click();
    await vi.waitFor(() => expect(text(main.querySelector('[data-exception]'))).toBe('acknowledged'));
    expect(api.to('post', '/agent/plan')[0].body).toMatchObject({ action: 'create_task', related_uids: ['n_from'] });
    expect(buttons(main, /^Acknowledge/)).toEqual([]);
    fill(labelled(main, 'Severity'), 'medium');
    expect(ctx.navigate).toHaveBeenCalledWith('/app/health?days=30&status=open%2Cacknowledged&severity=medium');
  });

  it('gives a viewer the figures without the acknowledge control', async () => {
    const api = new FakeApi();
    api.on('get', '/v1/knowledge-health/summary', summary);
    api.on('get', '/v1/knowledge-health/exceptions', { items: [ex('a')], has_more: false, limit: 50, next_cursor: null, groups: [] });
    const main = await render(health, ctxFor(api, 'viewer'));
    expect(main.querySelectorAll('[data-exception]').length).toBe(1);
    expect(buttons(main, /^Acknowledge/)).toEqual([]);
  });
});
