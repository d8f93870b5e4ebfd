/** One parsed block of an event stream: an event, or a comment line. */
export interface ReceivedSse {
  event?: string;
  id?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/**
 * A streaming fetch client for tests: reads the body as it arrives and hands out one block at
 * a time; `next()` resolves null when the server ended the stream.
 */
export async function openSse(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  const reader = res.body ? res.body.getReader() : null;
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  const parse = (block: string): ReceivedSse => {
    const out: ReceivedSse = {};
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) out.comment = line.slice(1).trim();
      else {
        const i = line.indexOf(':');
        const field = line.slice(0, i);
        const value = line.slice(i + 1).replace(/^ /, '');
        if (field === 'data') data.push(value);
        else if (field === 'event') out.event = value;
        else if (field === 'id') out.id = value;
        else if (field === 'retry') out.retry = Number(value);
      }
    }
    if (data.length > 0) out.data = data.join('\n');
    return out;
  };
  const next = async (): Promise<ReceivedSse | null> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parse(block);
      }
      if (done || !reader) return null;
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) done = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  /** the next block that is not a heartbeat comment */
  const nextEvent = async (): Promise<ReceivedSse | null> => {
    for (;;) {
      const b = await next();
      if (!b || !b.comment) return b;
    }
  };
  return {
    res,
    next,
    nextEvent,
    close: () => abort.abort(),
    /** every remaining block until the server ends the stream */
    rest: async () => {
      const out: ReceivedSse[] = [];
      for (let b = await next(); b; b = await next()) out.push(b);
      return out;
    },
  };
}
