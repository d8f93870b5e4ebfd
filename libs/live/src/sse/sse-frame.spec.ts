import { formatSseComment, formatSseFrame } from './sse-frame';

describe('SSE framing', () => {
  it('writes event, id and JSON data, ended by a blank line', () => {
    expect(formatSseFrame({ event: 'tool.call', id: '13', data: { a: 1 } })).toBe('event: tool.call\nid: 13\ndata: {"a":1}\n\n');
  });
  it('splits multi-line data into one data: line per line, whatever the line ending', () => {
    expect(formatSseFrame({ data: 'one\ntwo\r\nthree\rfour' })).toBe('data: one\ndata: two\ndata: three\ndata: four\n\n');
  });
  it('leaves out the id line when there is no id (the client keeps its last id)', () => {
    expect(formatSseFrame({ event: 'ready', data: {} })).toBe('event: ready\ndata: {}\n\n');
  });
  it('refuses an id or event name that would break the framing', () => {
    expect(() => formatSseFrame({ id: '1\n2', data: '' })).toThrow(/one line/);
    expect(() => formatSseFrame({ event: 'a\rb', data: '' })).toThrow(/one line/);
  });
  it('keeps a comment on one line', () => {
    expect(formatSseComment('heartbeat 1767225600')).toBe(': heartbeat 1767225600\n\n');
    expect(formatSseComment('a\nb')).toBe(': a b\n\n');
  });
});
