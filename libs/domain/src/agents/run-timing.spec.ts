import { RunRecord, SessionEvent, foldRun, newRun, runningSeconds } from './session-state';

const base = { org_id: 'o', agent_id: 'a', session_id: 's', run_id: 'r' };
const ev = (type: string, at: number, extra: Record<string, unknown> = {}) => ({ type, data: { ...base, at, ...extra } }) as unknown as SessionEvent;

describe('a run\'s running time (REFERENCE §16.6 run_timeout)', () => {
  it('counts time running, not time queued or waiting on a person, across several waits', () => {
    let r: RunRecord = newRun({ ...base, at: 100, trigger: { kind: 'message', message_id: 'm' }, model: 'x' });
    expect(runningSeconds(r, 5000)).toBe(0); // queued
    r = foldRun(r, ev('AgentRunStarted', 200, { trigger: r.trigger, model: 'x', trace_uid: 't' }));
    expect(runningSeconds(r, 260)).toBe(60);
    r = foldRun(r, ev('AgentInputRequested', 300, { request_id: 'q', tool_call_id: 'c', prompt: 'p', options: null, expires_at: 9e9 }));
    expect(r.status).toBe('requires_action');
    expect(runningSeconds(r, 100_000)).toBe(100);
    r = foldRun(r, ev('AgentInputProvided', 10_000, { request_id: 'q', tool_call_id: 'c', response: 'y', responded_by: null, expired: false }));
    expect(runningSeconds(r, 10_050)).toBe(150);
    r = foldRun(r, ev('ToolApprovalRequested', 10_100, {}));
    r = foldRun(r, ev('ToolApprovalResolved', 20_000, {}));
    expect(r.status).toBe('running');
    expect(runningSeconds(r, 20_010)).toBe(210);
    r = foldRun(r, ev('AgentRunFailed', 20_020, { error: { code: 'x', message: 'y' } }));
    expect([r.running_since, r.running_s, runningSeconds(r, 99_999)]).toEqual([null, 220, 220]);
  });
});
