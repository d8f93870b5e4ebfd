import { ScriptedOpenAIServer } from '../testing/scripted-openai-server';
import { UpstreamError } from '../errors';
import { FixedClock } from '@strata/domain/time';
import { OpenAIEmbeddingProvider, type OpenAIEmbeddingProviderOptions, parseRetryAfter } from './openai-embedding-provider';

describe('OpenAIEmbeddingProvider against a scripted OpenAI-compatible server', () => {
  let server: ScriptedOpenAIServer;
  /** the waits between retries, recorded instead of sat out */
  let waits: number[];
  const provider = (extra: Partial<OpenAIEmbeddingProviderOptions> = {}) =>
    new OpenAIEmbeddingProvider({
      baseUrl: server.baseUrl,
      apiKey: 'sk-test',
      model: 'text-embedding-3-small',
      dimensions: 8,
      retryBaseMs: 1,
      clock: new FixedClock(1_700_000_000),
      wait: async (ms) => void waits.push(ms),
      ...extra,
    });

  beforeEach(async () => {
    waits = [];
    server = await ScriptedOpenAIServer.start({ apiKey: 'sk-test' });
  });
  afterEach(async () => {
    await server.close();
  });

  it('posts {model, input, dimensions} with the bearer key and returns vectors in input order', async () => {
    const p = provider();
    expect(p.provider).toBe('openai');
    expect(p.lexical).toBe(false);
    const vectors = await p.embed(['alpha', 'beta']);
    expect(vectors).toEqual([ScriptedOpenAIServer.vectorFor('alpha', 8), ScriptedOpenAIServer.vectorFor('beta', 8)]);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/embeddings');
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.headers['content-type']).toMatch(/application\/json/);
    expect(req.body).toEqual({ model: 'text-embedding-3-small', input: ['alpha', 'beta'], encoding_format: 'float', dimensions: 8 });
  });

  it('omits dimensions when told to, and tolerates a trailing slash in baseUrl', async () => {
    await provider({ sendDimensions: false, baseUrl: `${server.baseUrl}/` }).embed(['x']);
    expect(server.requests[0].path).toBe('/v1/embeddings');
    expect(server.requests[0].body).not.toHaveProperty('dimensions');
  });

  it('batches inputs and keeps the overall order', async () => {
    const texts = Array.from({ length: 250 }, (_, i) => `text ${i}`);
    const vectors = await provider().embed(texts);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([96, 96, 58]);
    expect(vectors).toHaveLength(250);
    vectors.forEach((v, i) => expect(v).toEqual(ScriptedOpenAIServer.vectorFor(texts[i], 8)));
    await provider({ batchSize: 2 }).embed(['a', 'b', 'c']);
    expect(server.requests.slice(3).map((r) => (r.body as { input: string[] }).input)).toEqual([['a', 'b'], ['c']]);
  });

  it('sorts results by index when the server answers out of order', async () => {
    server.enqueue({ type: 'embeddings', reversed: true });
    const vectors = await provider().embed(['first', 'second', 'third']);
    expect(vectors).toEqual(['first', 'second', 'third'].map((t) => ScriptedOpenAIServer.vectorFor(t, 8)));
  });

  it('sends no request for no input', async () => {
    expect(await provider().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    server.enqueue(
      { type: 'error', status: 429, headers: { 'retry-after': '0' } },
      { type: 'error', status: 500 },
      { type: 'error', status: 503 },
    );
    const vectors = await provider().embed(['x']);
    expect(vectors).toEqual([ScriptedOpenAIServer.vectorFor('x', 8)]);
    expect(server.requests).toHaveLength(4);
  });

  it('honours Retry-After on 429', async () => {
    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after': '1' } });
    await provider({ retryBaseMs: 100 }).embed(['x']);
    // the backoff would be 75–125 ms: the server's second wins
    expect(waits).toEqual([1000]);
    expect(server.requests).toHaveLength(2);
  });

  it('reads a Retry-After date against its clock', async () => {
    const clock = new FixedClock(1_700_000_000);
    server.enqueue({ type: 'error', status: 503, headers: { 'retry-after': new Date((clock.now() + 7) * 1000).toUTCString() } });
    await provider({ clock, retryBaseMs: 100 }).embed(['x']);
    expect(waits).toEqual([7000]);
    expect(parseRetryAfter('Tue, 14 Nov 2023 22:13:30 GMT', 1_700_000_000_000)).toBe(10_000);
    expect(parseRetryAfter('Tue, 14 Nov 2023 22:13:00 GMT', 1_700_000_000_000)).toBe(0);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });

  it('caps every wait at maxRetryDelayMs, Retry-After included', async () => {
    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after': '3600' } });
    await provider({ maxRetryDelayMs: 2000 }).embed(['x']);
    expect(waits).toEqual([2000]);
  });

  it('gives up after maxRetries with a 502 UpstreamError carrying the upstream status', async () => {
    server.enqueue(...Array.from({ length: 3 }, () => ({ type: 'error' as const, status: 502, message: 'bad gateway upstream' })));
    const err = await provider({ maxRetries: 2 }).embed(['x']).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ status: 502, code: 'upstream_error', upstreamStatus: 502 });
    expect(err.message).toMatch(/3 attempts/);
    expect(err.message).toMatch(/bad gateway upstream/);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry client errors and never leaks the key', async () => {
    const err = await provider({ apiKey: 'sk-wrong-secret' }).embed(['x']).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.upstreamStatus).toBe(401);
    expect(err.message).toMatch(/401/);
    expect(err.message).not.toMatch(/sk-wrong-secret/);
    expect(JSON.stringify(err.toBody())).not.toMatch(/sk-wrong-secret/);
    expect(server.requests).toHaveLength(1);

    server.enqueue({ type: 'error', status: 400, message: 'maximum context length exceeded' });
    const bad = await provider().embed(['x']).catch((e) => e);
    expect(bad.message).toMatch(/maximum context length/);
    expect(server.requests).toHaveLength(2);
  });

  it('times out a slow answer and a hanging one, retrying, then raises UpstreamError', async () => {
    let answerLate!: () => void;
    const late = new Promise<void>((resolve) => (answerLate = resolve));
    server.enqueue({ type: 'embeddings', hold: late }, { type: 'hang' });
    const err = await provider({ timeoutMs: 100, maxRetries: 1 }).embed(['x']).catch((e) => e);
    answerLate(); // the first answer comes only after the client gave up on it
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/timed out after 100 ms/);
    expect(waits).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('recovers when a timed-out attempt is followed by a good one', async () => {
    server.enqueue({ type: 'hang' });
    expect(await provider({ timeoutMs: 100 }).embed(['x'])).toEqual([ScriptedOpenAIServer.vectorFor('x', 8)]);
  });

  it('rejects vectors of the wrong dimension', async () => {
    server.enqueue({ type: 'embeddings', dimensions: 12 });
    const err = await provider().embed(['x']).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/12-dimensional embeddings, expected 8/);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects malformed bodies: invalid JSON, missing data, wrong count, bad index', async () => {
    server.enqueue(
      { type: 'raw', status: 200, body: 'not json' },
      { type: 'raw', status: 200, body: '{"object":"list"}' },
      { type: 'raw', status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: new Array(8).fill(0) }] }) },
      {
        type: 'raw',
        status: 200,
        body: JSON.stringify({ data: [0, 0].map(() => ({ index: 0, embedding: new Array(8).fill(0) })) }),
      },
      { type: 'raw', status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: 'AAAA' }] }) },
    );
    const p = provider();
    await expect(p.embed(['x'])).rejects.toThrow(/invalid JSON/);
    await expect(p.embed(['x'])).rejects.toThrow(/no data array/);
    await expect(p.embed(['x', 'y'])).rejects.toThrow(/1 embeddings for 2 inputs/);
    await expect(p.embed(['x', 'y'])).rejects.toThrow(/repeated index/);
    await expect(p.embed(['x'])).rejects.toThrow(/not an array/);
  });

  it('raises UpstreamError when nothing listens', async () => {
    const url = server.baseUrl;
    await server.close();
    const err = await new OpenAIEmbeddingProvider({ baseUrl: url, model: 'm', dimensions: 8, maxRetries: 1, retryBaseMs: 1, clock: new FixedClock(), wait: async () => undefined })
      .embed(['x'])
      .catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/request failed/);
    server = await ScriptedOpenAIServer.start();
  });

  it('validates its own configuration', () => {
    expect(() => new OpenAIEmbeddingProvider({ baseUrl: '', model: 'm', dimensions: 8, clock: new FixedClock() })).toThrow();
    expect(() => new OpenAIEmbeddingProvider({ baseUrl: 'http://x', model: 'm', dimensions: 0, clock: new FixedClock() })).toThrow();
  });
});
