/**
 * Server-sent events read from a fetch body (the dashboard cannot use EventSource: it sends no
 * Authorization header). The parser is pure: it takes text as it arrives, in any pieces, and
 * returns the complete messages (the WHATWG event-stream rules: `event`, `data` lines joined by
 * newlines, `id`, `retry`, comments ignored, a blank line ends a message).
 */
export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;
  /** the last `retry:` the server asked for, in ms */
  retry: number | null = null;

  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      // a lone \r at the end may be the first half of \r\n: wait for more
      if (!m || (m[0] === '\r' && m.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      if (line === '') {
        if (this.data.length) out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
        this.event = '';
        this.data = [];
        this.id = null;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (name === 'event') this.event = value;
      else if (name === 'data') this.data.push(value);
      else if (name === 'id') this.id = value;
      else if (name === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    }
    return out;
  }
}

/** Reads a response body as SSE messages until it ends or `signal` aborts. */
export async function readSse(res: Response, onMessage: (m: SseMessage) => void, parser = new SseParser()): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const m of parser.push(value)) onMessage(m);
    }
  } finally {
    reader.releaseLock();
  }
}
