import { applyTriggerAliases } from './trigger-aliases';

describe('applyTriggerAliases (REFERENCE §2.8)', () => {
  it('takes an alias as its field when the field is absent, without changing the input', () => {
    const body = { action: 'update_status', task_uid: 'u1', status: 'done' };
    expect(applyTriggerAliases('agent/plan', 'update_status', body)).toEqual({ action: 'update_status', target_uid: 'u1', status: 'done' });
    expect(body).toEqual({ action: 'update_status', task_uid: 'u1', status: 'done' });
  });

  it('leaves the alias in place when the field is sent too: the field wins', () => {
    const body = { target_uid: 'a', task_uid: 'b' };
    expect(applyTriggerAliases('agent/plan', 'update_status', body)).toBe(body);
  });

  it('applies only to the actions its row names', () => {
    const body = { task_uid: 'u1' };
    expect(applyTriggerAliases('agent/plan', 'create_plan', body)).toBe(body);
    expect(applyTriggerAliases('action/procedure', 'add_step', { target_uid: 'f' })).toEqual({ flow_uid: 'f' });
    expect(applyTriggerAliases('action/procedure', 'add_affordance', { target_uid: 's' })).toEqual({ source_uid: 's' });
    expect(applyTriggerAliases('action/risk', 'assess', { target_uid: 'x' })).toEqual({ assessed_uid: 'x' });
    expect(applyTriggerAliases('agent/governance', 'request_approval', { requires_plan_uid: 'p' })).toEqual({ governed_uid: 'p' });
  });

  it('moves props.approved to approved for resolve_approval, and drops it when approved is sent', () => {
    expect(applyTriggerAliases('agent/governance', 'resolve_approval', { task_uid: 'a', props: { approved: true, reason: 'ok' } })).toEqual({
      approval_uid: 'a',
      approved: true,
      props: { reason: 'ok' },
    });
    expect(applyTriggerAliases('agent/governance', 'resolve_approval', { approval_uid: 'a', approved: false, props: { approved: true } })).toEqual({
      approval_uid: 'a',
      approved: false,
      props: {},
    });
  });

  it('leaves the aliases an action resolves itself (execution task_uid) alone', () => {
    const body = { task_uid: 't' };
    expect(applyTriggerAliases('agent/execution', 'complete', body)).toBe(body);
    expect(applyTriggerAliases('agent/execution', 'start', body)).toBe(body);
  });
});
