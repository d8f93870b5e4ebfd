import { DomainError } from '../errors';
import { decideAgentBinding, decideKeyAccess, decideRevoke, decideRotate, keyStatus, replacementExpiry } from './api-key-decider';

const active = { expires_at: null, revoked_at: null, overlap_until: null };

describe('keyStatus / decideKeyAccess', () => {
  it('active keys pass and say until when', () => {
    expect(keyStatus(active, 100)).toBe('active');
    expect(decideKeyAccess(active, 100)).toEqual({ ok: true, valid_until: null });
    expect(decideKeyAccess({ ...active, expires_at: 500 }, 100)).toEqual({ ok: true, valid_until: 500 });
  });
  it('expired keys are refused from their expiry on', () => {
    expect(decideKeyAccess({ ...active, expires_at: 100 }, 100)).toEqual({ ok: false, reason: 'expired' });
  });
  it('revoked keys are refused at once', () => {
    expect(decideKeyAccess({ ...active, revoked_at: 50 }, 60)).toEqual({ ok: false, reason: 'revoked' });
  });
  it('rotated keys work during the overlap and not after', () => {
    const k = { ...active, overlap_until: 200 };
    expect(keyStatus(k, 150)).toBe('rotating');
    expect(decideKeyAccess(k, 150)).toEqual({ ok: true, valid_until: 200 });
    expect(keyStatus(k, 200)).toBe('rotated');
    expect(decideKeyAccess(k, 200)).toEqual({ ok: false, reason: 'rotated' });
  });
});

describe('decideRotate', () => {
  it('sets the overlap end, never past the key expiry', () => {
    expect(decideRotate(active, 3600, 1000)).toEqual({ overlap_until: 4600 });
    expect(decideRotate({ ...active, expires_at: 2000 }, 3600, 1000)).toEqual({ overlap_until: 2000 });
    expect(decideRotate(active, 0, 1000)).toEqual({ overlap_until: 1000 });
  });
  it('caps the overlap at seven days', () => {
    expect(decideRotate(active, 7 * 86400, 0)).toEqual({ overlap_until: 7 * 86400 });
    expect(() => decideRotate(active, 7 * 86400 + 1, 0)).toThrow(expect.objectContaining({ code: 'invalid_field', context: expect.objectContaining({ field: 'overlap_seconds' }) }));
    expect(() => decideRotate(active, -1, 0)).toThrow(DomainError);
  });
  it('refuses revoked, expired and already rotated keys', () => {
    for (const k of [{ ...active, revoked_at: 1 }, { ...active, expires_at: 1 }, { ...active, overlap_until: 5000 }])
      expect(() => decideRotate(k, 10, 100)).toThrow(expect.objectContaining({ code: 'invalid_transition' }));
  });
});

describe('replacementExpiry / decideRevoke', () => {
  it('keeps the absolute expiry of the old key', () => {
    expect(replacementExpiry({ expires_at: 1090 })).toBe(1090);
    expect(replacementExpiry({ expires_at: null })).toBeNull();
  });
  it('revocation is idempotent', () => {
    expect(decideRevoke(active)).toBe(true);
    expect(decideRevoke({ ...active, revoked_at: 3 })).toBe(false);
  });
});

describe('decideAgentBinding', () => {
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return [(e as { code?: string }).code, (e as { context?: { field?: string } }).context?.field];
    }
    return undefined;
  };
  const none = () => false;
  it('refuses "system" and principal forms, in any case', () => {
    for (const id of ['system', 'System', 'system:decay', 'user:u1', 'API_KEY:k1', 'agent:a1'])
      expect([id, codeOf(() => decideAgentBinding(id, none))]).toEqual([id, ['invalid_field', 'agent_id']]);
  });
  it('refuses the id of a user or key', () => {
    expect(codeOf(() => decideAgentBinding('u-1', (id) => id === 'u-1'))).toEqual(['invalid_field', 'agent_id']);
  });
  it('accepts other agent ids', () => {
    for (const id of ['agent-7', 'systems-bot', 'my.agent:1', 'subsystem']) expect(decideAgentBinding(id, none)).toBe(id);
  });
  it('refuses an archived managed agent, and accepts one that is not archived', () => {
    const archived = (id: string) => id === 'old-agent';
    expect(codeOf(() => decideAgentBinding('old-agent', none, archived))).toEqual(['invalid_field', 'agent_id']);
    expect(decideAgentBinding('new-agent', none, archived)).toBe('new-agent');
  });
});
