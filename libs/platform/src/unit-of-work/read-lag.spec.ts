import Fastify from 'fastify';
import { READ_LAG_HEADER, markReadLag, registerReadLagHeader } from './read-lag';

describe('read-lag header', () => {
  it('is sent only on responses whose handler marked the lag, across awaits', async () => {
    const app = Fastify();
    registerReadLagHeader(app);
    // the service parses JSON bodies itself, as a string (configure-http.ts)
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, JSON.parse(body as string)));
    app.post('/write', async () => {
      await new Promise((r) => setImmediate(r)); // a hop through the event loop, as an awaited write makes
      await Promise.resolve().then(() => markReadLag());
      return { ok: true };
    });
    app.get('/read', async () => ({ ok: true }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    // over a real socket: the body arrives in stream events, after the onRequest hook
    const [lagging, fresh] = await Promise.all([
      fetch(`${url}/write`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label: 'x'.repeat(200_000) }) }),
      fetch(`${url}/read`),
    ]);
    expect(lagging.status).toBe(200);
    expect(lagging.headers.get(READ_LAG_HEADER)).toBe('true');
    expect(fresh.headers.get(READ_LAG_HEADER)).toBeNull();
    await app.close();
  });

  it('does nothing outside a request', () => {
    expect(() => markReadLag()).not.toThrow();
  });
});
