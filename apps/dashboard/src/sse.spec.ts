import { SseParser } from './sse';

describe('SseParser', () => {
  it('joins data lines, keeps ids and event names, skips comments, and waits for the blank line', () => {
    const p = new SseParser();
    expect(p.push('retry: 3000\n\nevent: ready\ndata: {"a":1}\n')).toEqual([]);
    expect(p.push('\n: heartbeat 1\n\nid: 13\nevent: tool.call\ndata: one\ndata: two\n\n')).toEqual([
      { event: 'ready', data: '{"a":1}', id: null },
      { event: 'tool.call', data: 'one\ntwo', id: '13' },
    ]);
    expect(p.retry).toBe(3000);
  });

  it('takes text split anywhere, CRLF included', () => {
    const p = new SseParser();
    const text = 'event: message.delta\r\ndata: {"delta":"Hel"}\r\n\r\ndata:x\r\n\r\n';
    const got = [...text].flatMap((ch) => p.push(ch));
    expect(got).toEqual([
      { event: 'message.delta', data: '{"delta":"Hel"}', id: null },
      { event: 'message', data: 'x', id: null },
    ]);
  });
});
