import { withCachedList } from './json-body';

describe('withCachedList', () => {
  const shape = (t: { name: string; schema: object }) => ({ type: 'function', function: t });

  it('gives the JSON of the body with the list under its key, as one JSON.stringify would', () => {
    const tools = [{ name: 'a', schema: { type: 'object', properties: { q: { type: 'string' } } } }, { name: 'b "quoted"', schema: {} }];
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true };
    const text = withCachedList(body, 'tools', tools, new WeakMap(), shape).text;
    expect(JSON.parse(text)).toEqual({ ...body, tools: tools.map(shape) });
  });

  it('leaves the key out when the list is empty, and handles an empty body', () => {
    expect(withCachedList({ model: 'm' }, 'tools', [], new WeakMap(), shape).text).toBe('{"model":"m"}');
    expect(JSON.parse(withCachedList({}, 'tools', [{ name: 'a', schema: {} }], new WeakMap(), shape).text)).toEqual({ tools: [{ type: 'function', function: { name: 'a', schema: {} } }] });
  });

  it('shapes each item once and reuses its JSON for later bodies', () => {
    const tool = { name: 'a', schema: {} };
    const cache = new WeakMap<typeof tool, string>();
    let shaped = 0;
    const counting = (t: typeof tool) => (shaped++, shape(t));
    withCachedList({ n: 1 }, 'tools', [tool], cache, counting);
    const second = withCachedList({ n: 2 }, 'tools', [tool], cache, counting);
    expect(shaped).toBe(1);
    expect(JSON.parse(second.text)).toEqual({ n: 2, tools: [shape(tool)] });
  });
});
