import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import Fastify, { FastifyInstance } from 'fastify';
import { parseBodiesWithoutBind } from './parser-async-scope';

describe('parseBodiesWithoutBind', () => {
  const store = new AsyncLocalStorage<{ id: string }>();
  let app: FastifyInstance;

  beforeAll(async () => {
    expect(parseBodiesWithoutBind()).toBe(true);
    app = Fastify();
    app.addHook('onRequest', (req, _reply, done) => store.run({ id: String(req.headers['x-id']) }, done));
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
      try {
        done(null, JSON.parse((body as Buffer).toString('utf8')));
      } catch (err) {
        done(Object.assign(err as Error, { statusCode: 400 }), undefined);
      }
    });
    app.addContentTypeParser('text/plain', async (_req: unknown, payload: NodeJS.ReadableStream) => {
      let text = '';
      for await (const chunk of payload) text += chunk.toString();
      return { text };
    });
    app.post('/echo', async (req) => ({ body: req.body, seen: store.getStore()?.id ?? null }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('parses a body without AsyncResource.bind and runs the handler in the request’s async context', async () => {
    const bind = jest.spyOn(AsyncResource.prototype, 'bind');
    try {
      const r = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json', 'x-id': 'r1' }, payload: '{"a":1}' });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ body: { a: 1 }, seen: 'r1' });
      expect(bind).not.toHaveBeenCalled();
    } finally {
      bind.mockRestore();
    }
  });

  it('keeps the context for a parser that answers with a promise', async () => {
    const r = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'text/plain', 'x-id': 'r2' }, payload: 'hello' });
    expect(r.json()).toEqual({ body: { text: 'hello' }, seen: 'r2' });
  });

  it('answers a parser error with its status and closes the connection, as Fastify does', async () => {
    const r = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(r.statusCode).toBe(400);
    expect(r.headers.connection).toBe('close');
  });

  it('answers 415 for a media type no parser takes, and an unknown route its 404', async () => {
    const r = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'image/png' }, payload: 'x' });
    expect(r.statusCode).toBe(415);
    expect(r.json().code).toBe('FST_ERR_CTP_INVALID_MEDIA_TYPE');
    const missing = await app.inject({ method: 'POST', url: '/nowhere', headers: { 'content-type': 'image/png' }, payload: 'x' });
    expect(missing.statusCode).toBe(404);
  });
});
