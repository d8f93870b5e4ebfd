import { applySettingsChanges, decideSettingsChange, DEFAULT_GOVERNANCE_SETTINGS } from './governance-settings';

describe('governance settings (REFERENCE §13.5)', () => {
  const d = DEFAULT_GOVERNANCE_SETTINGS;
  it('defaults: enforce, organization, 72 h deadline, 24 h TTL', () => {
    expect(d).toEqual({ mode: 'enforce', agent_scope_without_grants: 'organization', approval_deadline_hours: 72, approval_ttl_hours: 24 });
  });

  it('records each changed field as {from, to}; nothing changed is null', () => {
    expect(decideSettingsChange(d, { mode: 'shadow', approval_ttl_hours: 24 })).toEqual({ mode: { from: 'enforce', to: 'shadow' } });
    expect(decideSettingsChange(d, { mode: 'enforce' })).toBeNull();
    expect(decideSettingsChange(d, {})).toBeNull();
    expect(applySettingsChanges(d, { approval_deadline_hours: { from: 72, to: 1 } }).approval_deadline_hours).toBe(1);
  });

  it.each([
    [{ mode: 'strict' }, 'mode'],
    [{ agent_scope_without_grants: 'project' }, 'agent_scope_without_grants'],
    [{ approval_deadline_hours: 0 }, 'approval_deadline_hours'],
    [{ approval_deadline_hours: 721 }, 'approval_deadline_hours'],
    [{ approval_deadline_hours: 1.5 }, 'approval_deadline_hours'],
    [{ approval_ttl_hours: 169 }, 'approval_ttl_hours'],
  ])('refuses %j (400 invalid_field naming %s)', (patch, field) => {
    try {
      decideSettingsChange(d, patch as never);
      throw new Error('expected a refusal');
    } catch (e: any) {
      expect([e.status, e.code, e.context.field]).toEqual([400, 'invalid_field', field]);
    }
  });

  it('accepts the bounds', () => {
    expect(decideSettingsChange(d, { approval_deadline_hours: 720, approval_ttl_hours: 168 })).not.toBeNull();
    expect(decideSettingsChange(d, { approval_deadline_hours: 1, approval_ttl_hours: 1 })).not.toBeNull();
  });
});
