import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Response header of a server-mode write answered before the read models showed it. */
export const READ_LAG_HEADER = 'X-Strata-Read-Lag';

interface LagState {
  lagging: boolean;
}

const current = new AsyncLocalStorage<LagState>();

/**
 * Marks the request being served as answered ahead of the read models. Called by the server
 * unit of work, deep inside the handler, where the HTTP reply is out of reach.
 */
export function markReadLag(): void {
  const s = current.getStore();
  if (s) s.lagging = true;
}

/**
 * Gives every request a lag flag (carried through the handler by AsyncLocalStorage) and
 * turns it into the header on the way out. Registered in server mode only: the embedded
 * default always answers read-your-writes and pays nothing.
 */
export function registerReadLagHeader(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const state: LagState = { lagging: false };
    (req as unknown as { strataLag: LagState }).strataLag = state;
    current.run(state, done);
  });
  fastify.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    if ((req as unknown as { strataLag?: LagState }).strataLag?.lagging) reply.header(READ_LAG_HEADER, 'true');
    done(null, payload);
  });
}
