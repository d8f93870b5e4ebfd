import { FixedClock } from '@strata/domain/time';
import { eventually } from '@strata/domain/testing/eventually';
import { UpstreamError } from '../../errors';
import { ScriptedAnthropicServer } from '../../testing/scripted-anthropic-server';
import type { ScriptedChatServer } from '../../testing/scripted-chat-server';
import { ScriptedOpenAIChatServer } from '../../testing/scripted-openai-chat-server';
import { AnthropicChatModel } from '../anthropic-chat-model';
import type { ChatModel } from '../chat-model.port';
import type { ChatModelOptions } from '../chat-model-options';
import { OpenAIChatModel } from '../openai-chat-model';
import { parseRetryAfter, timerWait } from './llm-transport';

const KEY = 'sk-live-DO-NOT-LEAK-4242';
const PROMPT = 'the confidential board minutes of 3 March';

describe.each([
  ['openai', () => ScriptedOpenAIChatServer.start({ apiKey: KEY }), (o: ChatModelOptions) => new OpenAIChatModel(o)],
  ['anthropic', () => ScriptedAnthropicServer.start({ apiKey: KEY }), (o: ChatModelOptions) => new AnthropicChatModel(o)],
] as const)('%s: retries, timeout, cancellation and what errors say', (provider, start, create) => {
  let server: ScriptedChatServer & { baseUrl: string };
  let waits: number[];
  let logs: string[];
  const clock = new FixedClock(1_700_000_000);
  const model = (extra: Partial<ChatModelOptions> = {}): ChatModel =>
    create({
      url: server.baseUrl,
      apiKey: KEY,
      model: 'scripted',
      clock,
      wait: async (ms) => void waits.push(ms),
      log: (line) => logs.push(line),
      ...extra,
    });
  const ask = (m: ChatModel, signal?: AbortSignal) => m.chat({ system: 'you are careful', messages: [{ role: 'user', content: PROMPT }], signal });

  beforeEach(async () => {
    waits = [];
    logs = [];
    server = await start();
  });
  afterEach(() => server.close());

  it('retries 5xx with exponential back-off from 1 s and then answers', async () => {
    server.enqueue({ type: 'error', status: 503 }, { type: 'error', status: 500 }, { type: 'text', text: 'recovered' });
    const res = await ask(model());
    expect(res.text).toBe('recovered');
    expect(waits).toEqual([1000, 2000]);
    expect(server.requests).toHaveLength(3);
    expect(logs).toEqual([
      `${provider}: HTTP 503 server error; retry 1 of 3 in 1000 ms`,
      `${provider}: HTTP 500 server error; retry 2 of 3 in 2000 ms`,
    ]);
  });

  it('honours Retry-After in seconds on a 429, and the back-off when it is longer', async () => {
    server.enqueue({ type: 'error', status: 429, retryAfter: '7' }, { type: 'error', status: 429, retryAfter: '0' }, { type: 'text', text: 'ok' });
    await ask(model());
    expect(waits).toEqual([7000, 2000]);
  });

  it('honours Retry-After as an HTTP date, read against the injected clock', async () => {
    const at = new Date((clock.now() + 30) * 1000).toUTCString();
    server.enqueue({ type: 'error', status: 429, retryAfter: at }, { type: 'text', text: 'ok' });
    await ask(model());
    expect(waits).toEqual([30000]);
  });

  it('retries a connection error', async () => {
    server.enqueue({ type: 'drop' }, { type: 'text', text: 'ok' });
    expect((await ask(model())).text).toBe('ok');
    expect(waits).toEqual([1000]);
    expect(logs[0]).toMatch(new RegExp(`^${provider}: connection failed \\([A-Z_]+\\); retry 1 of 3 in 1000 ms$`));
  });

  it('gives up after 3 retries with an UpstreamError naming the provider, the status and a short reason', async () => {
    for (let i = 0; i < 4; i++) server.enqueue({ type: 'error', status: 502, echoRequest: true });
    const err = await ask(model()).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toBe(`${provider} failed after 4 attempts: HTTP 502 server error`);
    expect(err.toBody()).toEqual({ error: err.message, code: 'upstream_error', provider, upstream_status: 502 });
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(server.requests).toHaveLength(4);
  });

  it('never repeats the key, the prompt or the provider body, in the error or in the log', async () => {
    // the server quotes the key and the messages back, as careless providers do
    for (let i = 0; i < 4; i++) server.enqueue({ type: 'error', status: 500, echoRequest: true });
    const retried = await ask(model()).catch((e) => e);
    server.enqueue({ type: 'error', status: 400, echoRequest: true });
    const refused = await ask(model()).catch((e) => e);
    server.enqueue({ type: 'error', status: 422, body: JSON.stringify({ error: { type: `bad ${KEY}`, message: `you said ${PROMPT} with ${KEY}` } }) });
    const odd = await ask(model()).catch((e) => e);
    const sent = server.requests.map((r) => JSON.stringify(r.headers) + JSON.stringify(r.body)).join('');
    expect(sent).toContain(KEY);
    expect(sent).toContain(PROMPT);
    for (const err of [retried, refused, odd]) {
      expect(err).toBeInstanceOf(UpstreamError);
      const said = JSON.stringify({ message: err.message, body: err.toBody(), context: err.context, stack: err.stack });
      for (const secret of [KEY, 'DO-NOT-LEAK', PROMPT, 'confidential', 'you sent key', 'scripted']) expect(said).not.toContain(secret);
    }
    expect(refused.message).toMatch(new RegExp(`^${provider} answered HTTP 400: request rejected`));
    expect(odd.message).toBe(`${provider} answered HTTP 422: request rejected`);
    const logged = logs.join('\n');
    expect(logs.length).toBe(3);
    for (const secret of [KEY, PROMPT, 'you sent key']) expect(logged).not.toContain(secret);
  });

  it('times out a call that hangs (timeoutMs) with an UpstreamError, without retrying it', async () => {
    server.enqueue({ type: 'hang' });
    const err = await ask(model({ timeoutMs: 150 })).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toBe(`${provider} did not answer within 150 ms`);
    // at most the one call (on a loaded machine the 150 ms may run out before it reaches the server), never a retry
    expect(server.requests.length).toBeLessThanOrEqual(1);
    expect(waits).toEqual([]);
  });

  it("the caller's signal cancels a call in flight at once", async () => {
    server.enqueue({ type: 'hang' });
    const controller = new AbortController();
    const call = ask(model(), controller.signal).catch((e) => e);
    await eventually(() => server.requests.length === 1, { what: 'the request reached the server' });
    controller.abort();
    const err = await call;
    expect(err.name).toBe('AbortError');
    expect(waits).toEqual([]);
  });

  it("the caller's signal cancels a back-off wait at once", async () => {
    server.enqueue({ type: 'error', status: 429, retryAfter: '3600' });
    const controller = new AbortController();
    const asked: number[] = [];
    const m = model({ wait: (ms, signal) => (asked.push(ms), timerWait(ms, signal)) });
    const call = ask(m, controller.signal).catch((e) => e);
    await eventually(() => asked.length === 1, { what: 'the back-off started' });
    expect(asked).toEqual([60_000]);
    controller.abort(new Error('client went away'));
    expect((await call).message).toBe('client went away');
    expect(server.requests).toHaveLength(1);
  });

  it("an error thrown by the caller's onTextDelta reaches the caller as it is, without a retry", async () => {
    server.enqueue({ type: 'text', text: 'a long enough streamed answer' });
    const boom = new Error('client disconnected');
    const err = await model()
      .chat({ messages: [{ role: 'user', content: 'x' }], onTextDelta: () => { throw boom; } })
      .catch((e) => e);
    expect(err).toBe(boom);
    expect(server.requests).toHaveLength(1);
  });

  it('a signal already aborted sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(ask(model(), controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores nonsense', () => {
    const now = 1_700_000_000_000;
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter(new Date(now + 45_000).toUTCString(), now)).toBe(45_000);
    expect(parseRetryAfter(new Date(now - 45_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
