import { LoginThrottle } from './login-throttle';

describe('LoginThrottle', () => {
  it('refuses after 5 failures for an e-mail within the window, with a Retry-After; success clears', () => {
    let now = 1000;
    const t = new LoginThrottle(() => now);
    for (let i = 0; i < 4; i++) t.fail('a@x', 'ip1');
    expect(() => t.check('a@x', 'ip1')).not.toThrow();
    t.fail('a@x', 'ip1');
    expect(() => t.check('a@x', 'ip2')).toThrow(expect.objectContaining({ status: 429, code: 'rate_limited', context: { retry_after: 900 } }));
    expect(() => t.check('b@x', 'ip1')).not.toThrow();
    now += 600;
    expect(() => t.check('a@x', 'ip1')).toThrow(expect.objectContaining({ context: { retry_after: 300 } }));
    now += 300;
    expect(() => t.check('a@x', 'ip1')).not.toThrow();
    t.fail('c@x', 'ip3');
    t.succeed('c@x');
    for (let i = 0; i < 4; i++) t.fail('c@x', 'ip3');
    expect(() => t.check('c@x', 'ip3')).not.toThrow();
  });
  it('limits one address across e-mails', () => {
    const t = new LoginThrottle(() => 0, { perEmail: 5, perAddress: 3, windowSeconds: 60 });
    t.fail('a', 'ip');
    t.fail('b', 'ip');
    t.fail('c', 'ip');
    expect(() => t.check('d', 'ip')).toThrow(expect.objectContaining({ code: 'rate_limited' }));
    expect(() => t.check('d', 'other')).not.toThrow();
  });
});
