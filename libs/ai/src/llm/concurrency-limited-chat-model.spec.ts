import { FixedClock } from '@strata/domain/time';
import { eventually } from '@strata/domain/testing/eventually';
import { ScriptedOpenAIChatServer } from '../testing/scripted-openai-chat-server';
import { ConcurrencyLimitedChatModel } from './concurrency-limited-chat-model';
import { OpenAIChatModel } from './openai-chat-model';

describe('ConcurrencyLimitedChatModel', () => {
  let server: ScriptedOpenAIChatServer;
  beforeEach(async () => {
    server = await ScriptedOpenAIChatServer.start();
  });
  afterEach(() => server.close());

  const ask = (m: ConcurrencyLimitedChatModel, content: string, signal?: AbortSignal) => m.chat({ messages: [{ role: 'user', content }], signal });

  it('keeps at most `limit` calls in flight and runs the rest in arrival order', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server.enqueue(
      { type: 'text', text: 'a', hold: held },
      { type: 'text', text: 'b', hold: held },
      { type: 'text', text: 'c' },
      { type: 'text', text: 'd' },
    );
    const m = new ConcurrencyLimitedChatModel(new OpenAIChatModel({ url: server.baseUrl, apiKey: 'k', model: 'scripted', clock: new FixedClock() }), 2);
    expect(m.provider).toBe('openai');
    expect(m.model).toBe('scripted');
    const calls = ['1', '2', '3', '4'].map((c) => ask(m, c));
    await eventually(() => server.requests.length === 2, { what: 'two calls reached the server' });
    expect(m.load).toEqual({ running: 2, queued: 2 });
    expect(server.requests.map((r) => r.body.messages[0].content)).toEqual(['1', '2']);
    release();
    expect((await Promise.all(calls)).map((r) => r.text)).toEqual(['a', 'b', 'c', 'd']);
    expect(server.requests.map((r) => r.body.messages[0].content)).toEqual(['1', '2', '3', '4']);
    expect(m.load).toEqual({ running: 0, queued: 0 });
  });

  it('a queued call whose signal aborts leaves the queue without ever being sent', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server.enqueue({ type: 'text', text: 'first', hold: held });
    const m = new ConcurrencyLimitedChatModel(new OpenAIChatModel({ url: server.baseUrl, apiKey: 'k', model: 'scripted', clock: new FixedClock() }), 1);
    const first = ask(m, 'first');
    const controller = new AbortController();
    const second = ask(m, 'second', controller.signal).catch((e) => e);
    await eventually(() => m.load.queued === 1, { what: 'the second call queued' });
    controller.abort();
    expect((await second).name).toBe('AbortError');
    expect(m.load.queued).toBe(0);
    release();
    expect((await first).text).toBe('first');
    expect(server.requests).toHaveLength(1);
  });

  it('a failing call frees its slot', async () => {
    server.enqueue({ type: 'error', status: 400 }, { type: 'text', text: 'next' });
    const m = new ConcurrencyLimitedChatModel(new OpenAIChatModel({ url: server.baseUrl, apiKey: 'k', model: 'scripted', clock: new FixedClock() }), 1);
    await expect(ask(m, 'x')).rejects.toThrow(/HTTP 400/);
    expect((await ask(m, 'y')).text).toBe('next');
  });
});
