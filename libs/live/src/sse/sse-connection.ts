import type { ServerResponse } from 'node:http';
import { SseFrame, formatSseComment, formatSseFrame } from './sse-frame';

/**
 * A frame's wire form, made once however many streams send it (the frames of a session's
 * events are shared by all its streams).
 */
const wire = new WeakMap<SseFrame, string>();
function wireOf(frame: SseFrame): string {
  let text = wire.get(frame);
  if (text === undefined) wire.set(frame, (text = formatSseFrame(frame)));
  return text;
}

/**
 * One open event stream on a raw Node response. Writes wait for `drain` when the socket's
 * buffer is full, so a client that stops reading holds up its own stream (and, upstream, gets
 * dropped as a slow consumer) instead of growing memory. Ends once, on close() or when the
 * client goes away.
 */
export class SseConnection {
  private ended = false;
  private readonly closeListeners: (() => void)[] = [];

  constructor(private readonly res: ServerResponse) {
    res.on('close', () => this.finish());
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /** status line, headers and the client's reconnect delay */
  start(retryMs: number): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // proxies (nginx) must pass events through as they are written
      'x-accel-buffering': 'no',
    });
    this.res.write(`retry: ${Math.floor(retryMs)}\n\n`);
  }

  send(frame: SseFrame): Promise<void> {
    return this.write(wireOf(frame));
  }

  comment(text: string): Promise<void> {
    return this.write(formatSseComment(text));
  }

  onClose(listener: () => void): void {
    if (this.ended) listener();
    else this.closeListeners.push(listener);
  }

  close(): void {
    if (this.ended) return;
    this.res.end();
    this.finish();
  }

  /** whether writes are being gathered for one flush once the microtasks running now are done */
  private corked = false;

  private write(chunk: string): Promise<void> {
    if (this.ended) return Promise.resolve();
    // the frames written together (the events of one commit, delivered in one run of
    // microtasks) leave in one socket write, not one each: with many streams the syscalls were
    // most of the fan-out's cost. Flushed once those microtasks ran, before any other I/O.
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      process.nextTick(() => {
        this.corked = false;
        this.res.uncork();
      });
    }
    if (this.res.write(chunk)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const l of this.closeListeners.splice(0)) l();
  }
}
