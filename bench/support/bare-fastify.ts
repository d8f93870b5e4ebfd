import Fastify from 'fastify';

/**
 * The baseline for GET /node/{uid}: a bare Fastify server returning the same JSON body,
 * with no auth, no routing framework and no storage.
 */
async function main(): Promise<void> {
  const [port, json] = [Number(process.argv[2]), process.argv[3]];
  const app = Fastify({ logger: false });
  app.get('/node/:uid', (_req, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').send(json);
  });
  await app.listen({ port, host: '127.0.0.1' });
}
void main();
