import { decideArchiveAgent, decideCreateAgent, decideUpdateAgent } from './agent-decider';
import { budgetExhaustion, creditsOf, nextUtcMidnight } from './credits';
import { SessionEvent, foldRun, foldSession, newRun, newSession } from './session-state';
import { sessionWireEvent } from './session-wire';
import { at } from '@strata/domain/testing/fixed-time';

const ctx = { defaultModel: 'm', models: ['m', 'big'], takenNames: new Set<string>() };
const T0 = at('2030-01-01T12:00:00Z');

describe('agent decider', () => {
  it('fills from the template and refuses unknown tools, models and taken names', () => {
    const a = decideCreateAgent({ name: 'A', template_type: 'briefing' }, { id: 'a1', node_uid: 'n1' }, 'o', 'u', ctx, T0);
    expect(a).toMatchObject({ model: 'm', daily_credit_budget: 100, max_steps: 25, status: 'active', tools: ['strata_retrieve', 'strata_traverse', 'strata_get_node', 'strata_write_article', 'strata_remember'] });
    expect(() => decideCreateAgent({ name: 'A', tools: ['nope'] }, { id: 'x', node_uid: 'n' }, 'o', 'u', ctx, T0)).toThrow(expect.objectContaining({ code: 'invalid_field', context: expect.objectContaining({ field: 'tools' }) }));
    expect(() => decideCreateAgent({ name: 'A', model: 'gpt' }, { id: 'x', node_uid: 'n' }, 'o', 'u', ctx, T0)).toThrow(expect.objectContaining({ code: 'invalid_field' }));
    expect(() => decideCreateAgent({ name: 'a ' }, { id: 'x', node_uid: 'n' }, 'o', 'u', { ...ctx, takenNames: new Set(['a']) }, T0)).toThrow(expect.objectContaining({ code: 'duplicate' }));
  });
  it('PATCH: nothing changed is no move; pause and resume are moves of their own; archived is final', () => {
    const a = decideCreateAgent({ name: 'A' }, { id: 'a1', node_uid: 'n1' }, 'o', 'u', ctx, T0);
    expect(decideUpdateAgent(a, { name: 'A', max_steps: 25 }, ctx, T0 + 1).moves).toEqual([]);
    const p = decideUpdateAgent(a, { paused: true, max_steps: 3 }, ctx, T0 + 1);
    expect(p.moves).toEqual(['updated', 'paused']);
    expect(p.agent).toMatchObject({ status: 'paused', max_steps: 3, updated_at: T0 + 1 });
    expect(decideUpdateAgent(p.agent, { paused: false }, ctx, T0 + 2).moves).toEqual(['resumed']);
    const gone = decideArchiveAgent(a, T0 + 3)!;
    expect(decideArchiveAgent(gone, T0 + 4)).toBeNull();
    expect(() => decideUpdateAgent(gone, { max_steps: 2 }, ctx, T0 + 5)).toThrow(expect.objectContaining({ code: 'invalid_transition' }));
  });
  it('PATCH: a bad body is refused (400) before the archived state (409); the agent’s own model may be named again', () => {
    const gone = decideArchiveAgent(decideCreateAgent({ name: 'A' }, { id: 'a1', node_uid: 'n1' }, 'o', 'u', ctx, T0), T0 + 1)!;
    expect(() => decideUpdateAgent(gone, { tools: ['nope'] }, ctx, T0 + 2)).toThrow(expect.objectContaining({ code: 'invalid_field', context: expect.objectContaining({ field: 'tools' }) }));
    expect(() => decideUpdateAgent(gone, { model: 'gpt' }, ctx, T0 + 2)).toThrow(expect.objectContaining({ code: 'invalid_field', context: expect.objectContaining({ field: 'model' }) }));
    const legacy = { ...decideCreateAgent({ name: 'B' }, { id: 'b1', node_uid: 'n2' }, 'o', 'u', ctx, T0), model: 'retired' };
    expect(decideUpdateAgent(legacy, { model: 'retired', max_steps: 3 }, ctx, T0 + 2).agent).toMatchObject({ model: 'retired', max_steps: 3 });
  });
});

describe('credits', () => {
  it('per call max(1, ⌈tokens/1000⌉); exhausted by the day, then by the month', () => {
    expect([creditsOf(0, 0), creditsOf(999, 1), creditsOf(1000, 1)]).toEqual([1, 1, 2]);
    expect(nextUtcMidnight(T0)).toBe(at('2030-01-02T00:00:00Z'));
    expect(budgetExhaustion({ daily_credit_budget: 5, used_today: 4, month_limit: 10, month_used: 9 }, T0)).toBeNull();
    expect(budgetExhaustion({ daily_credit_budget: 5, used_today: 5, month_limit: null, month_used: 0 }, T0)).toMatchObject({ scope: 'agent', budget: 5, used: 5 });
    expect(budgetExhaustion({ daily_credit_budget: 5, used_today: 1, month_limit: 10, month_used: 10 }, T0)).toMatchObject({ scope: 'organization', resets_at: at('2030-02-01T00:00:00Z') });
  });
});

describe('session fold', () => {
  const base = { org_id: 'o', agent_id: 'a', session_id: 's', at: T0 };
  const ev = (type: string, data: Record<string, unknown>) => ({ type, data: { ...base, ...data } }) as unknown as SessionEvent;
  it('runs queue behind the current one; an interrupt discards the queue; status follows the current run', () => {
    let s = newSession({ ...base, run_id: null, title: null, metadata: null, node_uid: 'n', source: 'api', schedule_id: null, created_by: { kind: 'user', id: 'u' } });
    const runs = new Map<string, ReturnType<typeof newRun>>();
    const apply = (e: SessionEvent, seq: number) => {
      let r = e.type === 'AgentRunQueued' ? newRun(e.data) : e.data.run_id ? runs.get(e.data.run_id) ?? null : null;
      if (r && e.type !== 'AgentRunQueued') r = foldRun(r, e);
      if (r) runs.set(r.id, r);
      s = foldSession(s, e, seq, r, (id) => runs.get(id) ?? null);
    };
    apply(ev('AgentRunQueued', { run_id: 'r1', trigger: { kind: 'message', message_id: 'm1' }, model: 'm' }), 2);
    expect(s).toMatchObject({ current_run: 'r1', status: 'running' });
    apply(ev('AgentRunStarted', { run_id: 'r1', trigger: {}, model: 'm', trace_uid: 't' }), 3);
    apply(ev('AgentRunQueued', { run_id: 'r2', trigger: { kind: 'message', message_id: 'm2' }, model: 'm' }), 4);
    expect(s.queued_runs).toEqual([{ run_id: 'r2', message_id: 'm2' }]);
    apply(ev('AgentInputRequested', { run_id: 'r1', request_id: 'q', tool_call_id: 'c', prompt: '?', options: null, expires_at: T0 + 10 }), 5);
    expect(s.status).toBe('requires_action');
    apply(ev('AgentRunCancelled', { run_id: 'r1', reason: 'interrupted', discarded_message_ids: ['m2'] }), 6);
    expect(s).toMatchObject({ status: 'idle', current_run: null, last_run: 'r1', queued_runs: [], pending_input: null });
    expect(runs.get('r1')!.status).toBe('cancelled');
  });
  it('counts the runs queued in the session (the next run\'s number); a run keeps the number it was queued with', () => {
    const created = { ...base, run_id: null, title: null, metadata: null, node_uid: 'n', source: 'api' as const, schedule_id: null, created_by: { kind: 'user', id: 'u' } };
    let s = newSession(created);
    expect(s.run_count).toBe(0);
    const queued = (run: string, number?: number) => ev('AgentRunQueued', { run_id: run, trigger: { kind: 'message', message_id: `m-${run}` }, model: 'm', ...(number ? { number } : {}) });
    s = foldSession(s, queued('r1', 1), 1, null, () => null);
    s = foldSession(s, queued('r2', 2), 2, null, () => null);
    expect(s.run_count).toBe(2);
    expect(newRun(queued('r2', 2).data as never).number).toBe(2);
    // a session folded before runs were counted keeps no count, and its runs no number
    const before = { ...newSession(created), run_count: undefined };
    expect(foldSession(before, queued('r3'), 1, null, () => null).run_count).toBeUndefined();
    expect(newRun(queued('r3').data as never).number).toBeNull();
  });
  it('a run that recreated the Session node moves the session to it; run.started on the wire stays as it was', () => {
    let s = newSession({ ...base, run_id: null, title: null, metadata: null, node_uid: 'n-old', source: 'api', schedule_id: null, created_by: { kind: 'user', id: 'u' } });
    s = foldSession(s, ev('AgentRunStarted', { run_id: 'r1', trigger: {}, model: 'm', trace_uid: 't1' }), 2, null, () => null);
    expect(s.node_uid).toBe('n-old');
    const recreated = ev('AgentRunStarted', { run_id: 'r2', trigger: {}, model: 'm', trace_uid: 't2', session_node_uid: 'n-new' });
    expect(foldSession(s, recreated, 3, null, () => null).node_uid).toBe('n-new');
    expect(sessionWireEvent(recreated)!.data).toEqual({ run_id: 'r2', trigger: {}, model: 'm', trace_uid: 't2' });
  });
  it('the wire mapping leaves AgentRunQueued out and keeps the model’s interim text off the wire', () => {
    expect(sessionWireEvent(ev('AgentRunQueued', { run_id: 'r', trigger: {}, model: 'm' }))).toBeNull();
    const w = sessionWireEvent(ev('AgentInferenceCompleted', { run_id: 'r', step: 1, model: 'm', stop_reason: 'tool_use', usage: { input_tokens: 1, output_tokens: 2 }, credits: 1, duration_ms: 5, text: 'thinking' }))!;
    expect(w).toEqual({ type: 'inference.completed', data: { step: 1, model: 'm', stop_reason: 'tool_use', usage: { input_tokens: 1, output_tokens: 2 }, credits: 1, duration_ms: 5 } });
  });
});
