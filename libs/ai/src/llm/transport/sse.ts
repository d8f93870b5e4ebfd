/** One Server-Sent Events message: its `event` name (absent for the default) and its joined `data` lines. */
export interface SseMessage {
  event?: string;
  data: string;
}

/**
 * Reads a `text/event-stream` body message by message (WHATWG rules that matter to model
 * APIs: `\n`, `\r\n` or `\r` line ends, several `data:` lines joined by `\n`, comments and
 * unknown fields skipped, a message ends at a blank line, a last one without it still counts).
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  const flush = (): SseMessage | null => {
    const msg = data.length ? { ...(event !== undefined ? { event } : {}), data: data.join('\n') } : null;
    event = undefined;
    data = [];
    return msg;
  };
  const line = (text: string): SseMessage | null => {
    if (text === '') return flush();
    if (text.startsWith(':')) return null;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    return null;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let m = /\r\n|\n|\r/.exec(buffer); m; m = /\r\n|\n|\r/.exec(buffer)) {
      // a lone \r at the end of the buffer may be the first half of \r\n: wait for more
      if (m[0] === '\r' && m.index === buffer.length - 1) break;
      const msg = line(buffer.slice(0, m.index));
      buffer = buffer.slice(m.index + m[0].length);
      if (msg) yield msg;
    }
  }
  buffer += decoder.decode();
  if (buffer) {
    const msg = line(buffer.replace(/\r$/, ''));
    if (msg) yield msg;
  }
  const last = flush();
  if (last) yield last;
}
