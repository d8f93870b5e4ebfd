import type { WebsocketPluginOptions } from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { RecordedEvent } from '@strata/domain/events';
import type { Clock } from '@strata/domain/time';
import { ConnectionCaps, credentialKey } from '../connection-caps';
import type { SubscriberCount } from '../subscriber-count';
import { DEFAULT_BUFFER_SIZE, LiveSubscription, LogFilter, LogSubscriptions } from '../log-subscription.port';
import { Timers, systemTimers } from '../timers';
import { WsCloseCode } from './ws-close-codes';
import { MAX_CLIENT_MESSAGE_BYTES, WsMessageError, parseClientMessage } from './ws-client-message';

/** The credential fields the hub needs (an AuthContext from @strata/auth fits). */
export interface WsAuth {
  org_id: string;
  api_key_id: string | null;
  user_id: string | null;
}

/** A failed credential or access check: the DomainError shape (status, code, message). */
interface StatusError {
  status?: number;
  code?: string;
  message?: string;
}

export interface WsHubOptions<A extends WsAuth> {
  subscriptions: LogSubscriptions;
  /** bearer token → credential, throwing a 401/403 error (CredentialResolver.resolve fits) */
  resolve(token: string): A;
  clock: Clock;
  timers?: Timers;
  /** time to send {"type":"auth"} when the upgrade carried no Authorization (default 10 s) */
  authTimeoutMs?: number;
  /** heartbeat message and WebSocket ping this often (default 25 s) */
  heartbeatMs?: number;
  /** no pong this long after a ping closes the socket (default 60 s) */
  pongTimeoutMs?: number;
  /** open sockets per credential (default 10) */
  maxSocketsPerCredential?: number;
  /** told of each socket opened and closed (`StrataMetrics.liveSubscribers.labels('websocket')` fits) */
  subscribers?: SubscriberCount;
  /** events a subscribe with after_seq replays at most (default 1000) */
  maxReplay?: number;
  /** events a client may lag before it is dropped (default 1000) */
  maxBehind?: number;
}

/** What one socket route streams. Ids (`after_seq`) are log positions unless `positionOfSeq` says otherwise. */
export interface WsChannelSpec<A extends WsAuth> {
  /** route access after authentication (role, plan); throw a 403 error to close with 4403 */
  authorize?(auth: A): void;
  /** the filter for a credential and a subscribe message's other fields (null: the default, before any subscribe); throw WsMessageError to refuse it with 4400 */
  filterFor(auth: A, subscribe: Record<string, unknown> | null): LogFilter;
  /** the message (or nothing, to skip it) a recorded event becomes */
  toMessage(event: RecordedEvent, auth: A): object | null;
  /** the `ready` message's other fields (`last_seq` among them, when ids are not log positions) */
  ready?(auth: A, head: number): object;
  positionOfSeq?(seq: number, auth: A): Promise<number> | number;
}

/**
 * WebSocket connections that stream a filtered slice of the event log as JSON messages, on
 * @fastify/websocket. Auth by Bearer on the upgrade or a first {"type":"auth"} message (the
 * same credential resolver as HTTP); close codes 4400/4401/4403/4408/4429 and 1001 on
 * shutdown; heartbeats and pings; `subscribe` replaces the filter and replays then goes live.
 *
 * Register the plugin with this hub's shutdown hook so sockets close with 1001:
 * `app.register(fastifyWebsocket, hub.pluginOptions())`, then `hub.route(app, path, spec)`.
 */
export class WsLogHub<A extends WsAuth> {
  private readonly caps: ConnectionCaps;
  private readonly timers: Timers;
  private readonly sockets = new Set<WebSocket>();

  constructor(private readonly opts: WsHubOptions<A>) {
    this.caps = new ConnectionCaps(opts.maxSocketsPerCredential ?? 10);
    this.timers = opts.timers ?? systemTimers;
  }

  get size(): number {
    return this.sockets.size;
  }

  /** options for registering @fastify/websocket: small client frames, and 1001 on shutdown */
  pluginOptions(): WebsocketPluginOptions {
    const hub = this;
    return {
      options: { maxPayload: MAX_CLIENT_MESSAGE_BYTES },
      async preClose(this: FastifyInstance) {
        hub.close();
        await new Promise<void>((resolve) => this.websocketServer.close(() => resolve()));
      },
    };
  }

  route(app: FastifyInstance, path: string, spec: WsChannelSpec<A>): void {
    app.route({
      method: 'GET',
      url: path,
      // a plain GET reaches the route too: it gets the error shape, not an empty 404
      handler: (_request, reply) => {
        void reply.code(426).header('upgrade', 'websocket').send({ error: `${path} is a WebSocket: send the GET with Upgrade: websocket`, code: 'upgrade_required' });
      },
      wsHandler: (socket, request) => this.accept(socket, request, spec),
    });
  }

  /** closes every socket with 1001 (shutdown) */
  close(): void {
    for (const s of [...this.sockets]) s.close(WsCloseCode.goingAway, 'server shutting down');
  }

  private accept(socket: WebSocket, request: FastifyRequest, spec: WsChannelSpec<A>): void {
    const timers = this.timers;
    const cleanups: (() => void)[] = [];
    let closed = false;
    this.sockets.add(socket);
    this.opts.subscribers?.inc();
    const close = (code: number, reason: string) => {
      if (closed) return;
      closed = true;
      socket.close(code, reason.slice(0, 120));
    };
    socket.on('close', () => {
      closed = true;
      if (this.sockets.delete(socket)) this.opts.subscribers?.dec();
      for (const c of cleanups.splice(0)) c();
    });
    socket.on('error', () => close(1011, 'socket error'));
    const send = (message: object) =>
      new Promise<void>((resolve) => {
        if (closed || socket.readyState !== socket.OPEN) return resolve();
        socket.send(JSON.stringify(message), () => resolve());
      });

    let token: string | null = null;
    let auth: A | null = null;
    let sub: LiveSubscription | null = null;
    let subscribeGeneration = 0;

    const failAuth = (err: unknown) => {
      const e = err as StatusError;
      if (e?.status === 403 && e.code !== 'api_key_expired') close(WsCloseCode.forbidden, e.code ?? 'forbidden');
      else close(WsCloseCode.unauthorized, e?.code ?? 'invalid_token');
    };

    const subscribe = async (fields: Record<string, unknown> | null, afterSeq: number | undefined) => {
      const a = auth as A;
      const generation = ++subscribeGeneration;
      const filter = spec.filterFor(a, fields);
      await sub?.close();
      sub = null;
      const from = afterSeq === undefined ? 'now' : spec.positionOfSeq ? await spec.positionOfSeq(afterSeq, a) : afterSeq;
      const head = from === 'now' ? 0 : await this.opts.subscriptions.head();
      if (closed || generation !== subscribeGeneration) return;
      const maxReplay = this.opts.maxReplay ?? 1000;
      let replayed = 0;
      const start = (position: number | 'now') => {
        sub = this.opts.subscriptions.subscribe(
          { from: position, filter, bufferSize: this.opts.maxBehind ?? DEFAULT_BUFFER_SIZE },
          {
            event: async (event) => {
              if (generation !== subscribeGeneration) return;
              if (position !== 'now' && event.position <= head && ++replayed > maxReplay) {
                // the rest of the replay is skipped, live events are not: go on from the head
                await sub?.close();
                await send({ type: 'error', code: 'replay_truncated', error: `at most ${maxReplay} events are replayed; list older ones over HTTP` });
                start(head);
                return;
              }
              const message = spec.toMessage(event, a);
              if (message) await send(message);
            },
            dropped: (reason) => {
              void send({ type: 'error', code: reason, error: 'the connection fell too far behind or the log failed; reconnect' }).then(() =>
                close(WsCloseCode.policyViolation, reason),
              );
            },
          },
        );
      };
      start(from);
    };

    const authenticated = async (a: A) => {
      // the client may have gone while its credential was resolved: take no cap slot, arm no timer
      if (closed) return;
      try {
        spec.authorize?.(a);
      } catch (err) {
        return failAuth(err);
      }
      const release = this.caps.acquire(credentialKey(a));
      if (!release) return close(WsCloseCode.tooManySockets, 'too many sockets for this credential');
      cleanups.push(release);
      auth = a;
      cleanups.push(() => void sub?.close());
      this.startKeepAlive(socket, cleanups, send, close, () => {
        // re-check the credential: expiry and revocation close a socket that is already open
        try {
          this.opts.resolve(token as string);
        } catch (err) {
          const e = err as StatusError;
          if (e?.code === 'token_expired') void send({ type: 'error', code: 'token_expired', error: 'access token expired' }).then(() => close(WsCloseCode.unauthorized, 'token_expired'));
          else failAuth(err);
          return false;
        }
        return true;
      });
      const head = await this.opts.subscriptions.head();
      // `last_seq` is the log head unless the channel numbers its items itself
      await send({ type: 'ready', last_seq: head, ...(spec.ready?.(a, head) ?? {}), heartbeat_s: Math.round((this.opts.heartbeatMs ?? 25_000) / 1000) });
      await subscribe(null, undefined);
    };

    const tryToken = async (t: string) => {
      token = t;
      let a: A;
      try {
        a = this.opts.resolve(t);
      } catch (err) {
        return failAuth(err);
      }
      await authenticated(a).catch(() => close(1011, 'internal error'));
    };

    // messages are handled one after another, after the authentication in progress: a client
    // may send subscribe right behind its auth message without waiting for ready
    let inbox: Promise<void> = Promise.resolve();
    let authTimer: ReturnType<Timers['setTimeout']> | null = null;
    const header = request.headers.authorization;
    if (typeof header === 'string' && header !== '') {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) close(WsCloseCode.unauthorized, 'invalid_token');
      else inbox = tryToken(m[1]);
    } else {
      authTimer = timers.setTimeout(() => close(WsCloseCode.authTimeout, 'no auth message in time'), this.opts.authTimeoutMs ?? 10_000);
      cleanups.push(() => authTimer && timers.clear(authTimer));
    }

    const handle = async (data: string): Promise<void> => {
      if (closed) return;
      let message;
      try {
        message = parseClientMessage(data);
      } catch (err) {
        return close(WsCloseCode.malformed, err instanceof WsMessageError ? err.message : 'malformed message');
      }
      if (message.type === 'auth') {
        // only as the first message of a socket not authenticated on the upgrade
        if (token !== null || !authTimer) return close(WsCloseCode.malformed, 'unexpected auth message');
        timers.clear(authTimer);
        return tryToken(message.token);
      }
      if (!auth) return close(WsCloseCode.malformed, 'authenticate first');
      if (message.type === 'ping') return void send({ type: 'pong' });
      await subscribe(message.fields, message.after_seq).catch((err) =>
        err instanceof WsMessageError ? close(WsCloseCode.malformed, err.message) : close(1011, 'internal error'),
      );
    };
    socket.on('message', (data, isBinary) => {
      if (closed) return;
      if (isBinary) return close(WsCloseCode.malformed, 'binary frames are not accepted');
      const text = data.toString();
      inbox = inbox.then(() => handle(text));
    });
  }

  /** heartbeat messages and pings; `check` re-validates the credential at each beat */
  private startKeepAlive(
    socket: WebSocket,
    cleanups: (() => void)[],
    send: (m: object) => Promise<void>,
    close: (code: number, reason: string) => void,
    check: () => boolean,
  ): void {
    const timers = this.timers;
    let pongTimer: ReturnType<Timers['setTimeout']> | null = null;
    socket.on('pong', () => {
      if (pongTimer) timers.clear(pongTimer);
      pongTimer = null;
    });
    const beat = timers.setInterval(() => {
      if (!check()) return;
      void send({ type: 'heartbeat', at: new Date(this.opts.clock.now() * 1000).toISOString() });
      if (socket.readyState === socket.OPEN) socket.ping();
      // an unanswered ping: the peer is gone without closing; end the TCP connection
      pongTimer ??= timers.setTimeout(() => {
        close(1001, 'no pong');
        socket.terminate();
      }, this.opts.pongTimeoutMs ?? 60_000);
    }, this.opts.heartbeatMs ?? 25_000);
    cleanups.push(() => {
      timers.clear(beat);
      if (pongTimer) timers.clear(pongTimer);
    });
  }
}
