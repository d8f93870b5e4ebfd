import { ConnectionCaps, credentialKey } from './connection-caps';
import { ManualTimers } from './timers';

describe('ConnectionCaps', () => {
  it('refuses a key at its cap until one of its connections is released (once)', () => {
    const caps = new ConnectionCaps(2);
    const a = caps.acquire('k')!;
    caps.acquire('k');
    expect(caps.acquire('k')).toBeNull();
    expect(caps.acquire('other')).not.toBeNull();
    a();
    a();
    expect(caps.held('k')).toBe(1);
    expect(caps.acquire('k')).not.toBeNull();
  });

  it('counts an API key apart from a user, and a user per organization', () => {
    expect(credentialKey({ api_key_id: 'k1', user_id: null, org_id: 'o' })).toBe('key:k1');
    expect(credentialKey({ api_key_id: null, user_id: 'u', org_id: 'o1' })).not.toBe(credentialKey({ api_key_id: null, user_id: 'u', org_id: 'o2' }));
  });
});

describe('ManualTimers', () => {
  it('fires due timers in time order as time advances, repeating intervals, and moves the clock along', () => {
    let seconds = 0;
    const t = new ManualTimers((s) => (seconds += s));
    const fired: string[] = [];
    t.setInterval(() => fired.push(`i@${seconds}`), 10);
    const once = t.setTimeout(() => fired.push(`t@${seconds}`), 15);
    t.setTimeout(() => fired.push('never'), 100);
    t.advance(25);
    expect(fired).toEqual(['i@0.01', 't@0.015', 'i@0.02']);
    t.clear(once);
    expect(t.size).toBe(2);
    expect(seconds).toBeCloseTo(0.025);
  });
});
