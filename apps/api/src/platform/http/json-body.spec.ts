import { jsonBodyProblem } from './json-body';

describe('jsonBodyProblem', () => {
  it('accepts ordinary bodies, including "constructor" and "prototype" as plain keys', () => {
    expect(jsonBodyProblem(JSON.parse('{"label":"x","props":{"constructor":"Ada","prototype":1,"list":[{"a":null}]}}'))).toBeNull();
    expect(jsonBodyProblem(JSON.parse('{"constructor":{"name":"x"}}'))).toBeNull();
  });

  it('refuses __proto__ keys at any depth, also inside arrays', () => {
    for (const text of ['{"__proto__":{"polluted":1}}', '{"props":{"__proto__":{"polluted":1}}}', '{"a":[{"b":{"__proto__":null}}]}', '{"a":{"\\u005f_proto__":1}}'])
      expect([text, jsonBodyProblem(JSON.parse(text))]).toEqual([text, 'the key "__proto__" is not allowed']);
  });

  it('refuses constructor.prototype', () => {
    expect(jsonBodyProblem(JSON.parse('{"props":{"constructor":{"prototype":{"polluted":1}}}}'))).toBe('a "constructor" key holding a "prototype" key is not allowed');
  });
});
