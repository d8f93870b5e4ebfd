import { MAX_JSON_DEPTH, jsonBodyProblem, nestsDeeperThan } from './json-body';

const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
const arrays = (levels: number) => '{"a":' + '['.repeat(levels - 1) + ']'.repeat(levels - 1) + '}';

describe('nestsDeeperThan', () => {
  it('counts objects and arrays from the root (level 1)', () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan(arrays(64), 64)).toBe(false);
    expect(nestsDeeperThan(arrays(65), 64)).toBe(true);
    expect(nestsDeeperThan('{"a":[1,{"b":[]}],"c":{}}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[1,{"b":[]}],"c":{}}', 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ a: '[[[[{{{{' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ 'k"[[[': 'x\\"[[[[\\', b: '"{{{{' }), 1)).toBe(false);
    // an escaped backslash ends the string: the brackets after it count
    expect(nestsDeeperThan('{"a":"\\\\","b":[[1]]}', 2)).toBe(true);
    expect(nestsDeeperThan('{"a":"\\\\","b":[[1]]}', 3)).toBe(false);
  });

  it('stops early on a huge body, and never recurses', () => {
    const text = '{"a":' + '['.repeat(5_000_000) + ']'.repeat(5_000_000) + '}';
    // the text as the scan sees it, noting the furthest character it reads
    let furthest = -1;
    const watched = {
      length: text.length,
      charCodeAt: (i: number) => ((furthest = Math.max(furthest, i)), text.charCodeAt(i)),
      indexOf: (s: string, from?: number) => text.indexOf(s, from),
    } as unknown as string;
    expect(nestsDeeperThan(watched, MAX_JSON_DEPTH)).toBe(true);
    // it stopped at the first bracket past the limit, not at the end of the 10 MB
    // ('{' is the first level: the bracket that goes past the limit is the MAX_JSON_DEPTH-th '[')
    expect(furthest).toBe('{"a":'.length + MAX_JSON_DEPTH - 1);
  });

  it('leaves malformed text to JSON.parse', () => {
    expect(nestsDeeperThan('{"a": "unterminated', 64)).toBe(false);
    expect(nestsDeeperThan('}}}]]]', 64)).toBe(false);
  });
});

describe('jsonBodyProblem', () => {
  it('accepts ordinary bodies, including "constructor" and "prototype" as plain keys', () => {
    expect(jsonBodyProblem(JSON.parse('{"label":"x","props":{"constructor":"Ada","prototype":1,"list":[{"a":null}]}}'))).toBeNull();
    expect(jsonBodyProblem(JSON.parse('{"constructor":{"name":"x"}}'))).toBeNull();
    expect(jsonBodyProblem(JSON.parse(nested(MAX_JSON_DEPTH)))).toBeNull();
  });

  it('refuses __proto__ keys at any depth, also inside arrays', () => {
    for (const text of ['{"__proto__":{"polluted":1}}', '{"props":{"__proto__":{"polluted":1}}}', '{"a":[{"b":{"__proto__":null}}]}', '{"a":{"\\u005f_proto__":1}}'])
      expect([text, jsonBodyProblem(JSON.parse(text))]).toEqual([text, 'the key "__proto__" is not allowed']);
  });

  it('refuses constructor.prototype', () => {
    expect(jsonBodyProblem(JSON.parse('{"props":{"constructor":{"prototype":{"polluted":1}}}}'))).toBe('a "constructor" key holding a "prototype" key is not allowed');
  });

  it('refuses nesting deeper than the limit, iteratively', () => {
    expect(jsonBodyProblem(JSON.parse(nested(MAX_JSON_DEPTH + 1)))).toMatch(/deeper than 64 levels/);
    expect(jsonBodyProblem(JSON.parse(arrays(MAX_JSON_DEPTH + 1)))).toMatch(/deeper than 64 levels/);
    expect(jsonBodyProblem(JSON.parse(arrays(100_000)))).toMatch(/deeper than 64 levels/);
  });
});
