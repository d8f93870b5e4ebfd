import fastifyWebsocket from '@fastify/websocket';
import Fastify, { FastifyInstance } from 'fastify';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { AccountsDirectory, CredentialChange, DirectoryKey, DirectoryMembership } from '@strata/auth/accounts-directory.port';
import { AuthContext } from '@strata/auth/auth-context';
import { AuthErrors } from '@strata/auth/auth-errors';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { bearerTokenOf } from '@strata/auth/route-access';
import { generateApiKeySecret, sha256Hex } from '@strata/auth/tokens/secrets';
import { TokenService } from '@strata/auth/tokens/token.service';
import { DomainError } from '@strata/domain/errors';
import { FixedClock } from '@strata/domain/time';
import { SqliteEventStore } from '@strata/event-store';
import { credentialKey } from './connection-caps';
import { CommitSignal } from './embedded/commit-signal';
import { EmbeddedLogSubscriptions } from './embedded/embedded-log-subscriptions';
import { SseLogStreams, SseStreamSpec } from './sse/log-event-stream';
import { openSse } from './testing/sse-client';
import { ManualTimers } from './timers';
import { WsMessageError } from './ws/ws-client-message';
import { WsLogHub } from './ws/ws-log-hub';
import { eventFromLog, eventFields } from '@strata/domain/events';

class Directory implements AccountsDirectory {
  keys = new Map<string, DirectoryKey>();
  members = new Map<string, DirectoryMembership[]>();
  private listeners: ((c: CredentialChange) => void)[] = [];
  keyBySecretHash(h: string) {
    return this.keys.get(h) ?? null;
  }
  membershipsOf(u: string) {
    return this.members.get(u) ?? [];
  }
  planOf(o: string) {
    return o === 'org-pro' ? 'pro' : 'free';
  }
  onCredentialChange(l: (c: CredentialChange) => void) {
    this.listeners.push(l);
  }
  change(c: CredentialChange) {
    for (const l of this.listeners) l(c);
  }
}

/** polls on the event loop (never the wall clock) until the server reached a state */
async function eventually(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
}

describe('live streams over a real server and the SQLite log', () => {
  let dir: string;
  let store: SqliteEventStore;
  let signal: CommitSignal;
  let subs: EmbeddedLogSubscriptions;
  let clock: FixedClock;
  let timers: ManualTimers;
  let directory: Directory;
  let resolver: CredentialResolver;
  let tokens: TokenService;
  let app: FastifyInstance;
  let base: string;
  let sse: SseLogStreams;
  let slowSse: SseLogStreams;
  let hub: WsLogHub<AuthContext>;
  let proKey: string;
  let freeKey: string;
  /** what the streams told their subscriber counts (a metrics gauge in the service) */
  const counted = { sse: 0, websocket: 0 };
  const countOf = (k: keyof typeof counted) => ({ inc: () => void counted[k]++, dec: () => void counted[k]-- });

  const addKey = (org: string, id: string) => {
    const secret = generateApiKeySecret();
    directory.keys.set(sha256Hex(secret), { key_id: id, org_id: org, scopes: ['read'], expires_at: null, revoked_at: null, overlap_until: null, agent_id: null, space_uids: null, project_uids: null });
    return secret;
  };

  const append = async (stream: string, ...types: string[]) => {
    const meta = { org_id: 'org-pro', principal: { kind: 'user' as const, id: 'u1' }, request_id: 'r', correlation_id: null, occurred_at: clock.now() };
    const r = await store.append([{ stream, expectedRevision: 'any', events: types.map((type, i) => ({ ...eventFromLog(type, { i, text: `line one\nline two ${type}` }), metadata: meta })) }]);
    signal.notifyCommitted();
    return r.position;
  };

  const sseSpec = (name: string, auth: AuthContext): SseStreamSpec => ({
    capKey: credentialKey(auth),
    filter: { streamPrefixes: [`s-${name}`] },
    toFrame: (e) => ({ event: e.type, id: String(e.position), data: (e.type as string) === 'multi' ? String(eventFields(e).text) : { type: e.type, position: e.position } }),
    ready: (position) => ({ event: 'ready', data: { last_seq: position } }),
    isTerminal: (e) => (e.type as string) === 'session.archived',
  });

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-live-it-'));
    store = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 3_600_000 });
    signal = new CommitSignal();
    subs = new EmbeddedLogSubscriptions(store, signal);
    clock = new FixedClock(1_800_000_000);
    timers = new ManualTimers((s) => clock.advance(s));
    directory = new Directory();
    tokens = new TokenService('s'.repeat(40), 900, 86400, clock);
    resolver = new CredentialResolver(directory, tokens, clock);
    proKey = addKey('org-pro', 'k-pro');
    freeKey = addKey('org-free', 'k-free');
    directory.members.set('u1', [{ org_id: 'org-pro', role: 'member', plan: 'pro' }]);

    counted.sse = counted.websocket = 0;
    sse = new SseLogStreams({ subscriptions: subs, clock, timers, subscribers: countOf('sse') });
    slowSse = new SseLogStreams({ subscriptions: subs, clock, timers, maxBehind: 2 });
    hub = new WsLogHub<AuthContext>({ subscriptions: subs, resolve: (t) => resolver.resolve(t), clock, timers, maxReplay: 3, subscribers: countOf('websocket') });

    // shutdown must not wait for keep-alive sockets the fetch client still holds
    app = Fastify({ forceCloseConnections: true });
    app.setErrorHandler((err, _req, reply) => {
      if (err instanceof DomainError) return reply.code(err.status).send({ error: err.message, code: err.code });
      return reply.code(500).send({ error: 'internal', code: 'internal' });
    });
    await app.register(fastifyWebsocket, hub.pluginOptions());
    const authOf = (req: { headers: Record<string, unknown> }) => resolver.resolve(bearerTokenOf(req.headers.authorization as string | undefined));
    app.get<{ Params: { name: string } }>('/streams/:name', async (req, reply) => sse.serve(req, reply, sseSpec(req.params.name, authOf(req))));
    app.get<{ Params: { name: string } }>('/slow/:name', async (req, reply) => slowSse.serve(req, reply, sseSpec(req.params.name, authOf(req))));
    hub.route(app, '/ws', {
      authorize: (a) => {
        if (a.plan !== 'pro') throw AuthErrors.planRequired('pro');
      },
      filterFor: (_a, sub) => {
        const types = sub?.types;
        if (types !== undefined && !(Array.isArray(types) && types.every((t) => typeof t === 'string'))) throw new WsMessageError('types must be a list of strings');
        return { streamPrefixes: ['w-'], ...(types ? { types: types as string[] } : {}) };
      },
      toMessage: (e) => ({ type: 'activity', item: { seq: e.position, type: e.type } }),
      ready: (a) => ({ org_id: a.org_id }),
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterEach(async () => {
    sse.close();
    slowSse.close();
    await app.close();
    await subs.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('Server-Sent Events', () => {
    const auth = () => ({ authorization: `Bearer ${proKey}` });

    it('answers text/event-stream with retry, a ready event without id, then new events with ids', async () => {
      await append('s-a', 'old');
      const c = await openSse(`${base}/streams/a`, auth());
      expect(c.res.status).toBe(200);
      expect(c.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(c.res.headers.get('cache-control')).toBe('no-cache');
      expect(await c.next()).toEqual({ retry: 3000 });
      const ready = await c.next();
      expect(ready).toMatchObject({ event: 'ready' });
      expect(ready?.id).toBeUndefined();
      const head = JSON.parse(ready!.data!).last_seq as number;
      const p = await append('s-a', 'multi');
      expect(p).toBeGreaterThan(head);
      // multi-line data arrives as several data: lines that the client joins back
      expect(await c.next()).toEqual({ event: 'multi', id: String(p), data: 'line one\nline two multi' });
      c.close();
    });

    it('resumes after Last-Event-ID (which wins over ?after), replaying later events and then going live', async () => {
      const p1 = await append('s-r', 'e1');
      const p2 = await append('s-r', 'e2');
      const p3 = await append('s-r', 'e3');
      const c = await openSse(`${base}/streams/r?after=${p2}`, { ...auth(), 'last-event-id': String(p1) });
      await c.next(); // retry
      expect((await c.nextEvent())?.event).toBe('ready');
      expect(await c.nextEvent()).toMatchObject({ id: String(p2), event: 'e2' });
      expect(await c.nextEvent()).toMatchObject({ id: String(p3), event: 'e3' });
      const p4 = await append('s-r', 'e4');
      expect(await c.nextEvent()).toMatchObject({ id: String(p4), event: 'e4' });
      c.close();

      const byQuery = await openSse(`${base}/streams/r?after=${p3}`, auth());
      await byQuery.next();
      await byQuery.nextEvent(); // ready
      expect(await byQuery.nextEvent()).toMatchObject({ id: String(p4) });
      byQuery.close();
    });

    it('refuses a resume position that is not a non-negative integer with 400', async () => {
      const r = await fetch(`${base}/streams/a?after=abc`, { headers: auth() });
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'invalid_field' });
    });

    it('sends a heartbeat comment with the clock time every 15 s of the injected timers', async () => {
      const c = await openSse(`${base}/streams/h`, auth());
      await c.next();
      await c.next(); // ready: the heartbeat is armed before it is sent
      timers.advance(15_000);
      expect(await c.next()).toEqual({ comment: `heartbeat ${1_800_000_015}` });
      timers.advance(15_000);
      expect(await c.next()).toEqual({ comment: `heartbeat ${1_800_000_030}` });
      c.close();
    });

    it('closes the stream after the terminal event and after its maximum lifetime', async () => {
      const c = await openSse(`${base}/streams/t`, auth());
      await c.next();
      await c.next();
      await append('s-t', 'x', 'session.archived', 'after');
      const rest = await c.rest();
      expect(rest.map((b) => b.event)).toEqual(['x', 'session.archived']);

      const d = await openSse(`${base}/streams/t`, auth());
      await d.next();
      await d.next();
      timers.advance(30 * 60_000);
      const tail = await d.rest();
      expect(tail.every((b) => b.comment?.startsWith('heartbeat'))).toBe(true);
      await eventually(() => sse.size === 0);
    });

    it('caps concurrent streams per credential with 429 rate_limited, and a closed stream frees its place', async () => {
      const open = [];
      for (let i = 0; i < 10; i++) {
        const c = await openSse(`${base}/streams/c`, auth());
        expect(c.res.status).toBe(200);
        open.push(c);
      }
      const refused = await fetch(`${base}/streams/c`, { headers: auth() });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'rate_limited', error: expect.any(String) });
      // a refused stream was never open
      expect(counted.sse).toBe(10);
      // another credential has its own count
      const jwt = tokens.signAccess('u1').access_token;
      const other = await openSse(`${base}/streams/c`, { authorization: `Bearer ${jwt}` });
      expect(other.res.status).toBe(200);
      other.close();

      open[0].close();
      await eventually(() => sse.size === 9);
      expect(counted.sse).toBe(9);
      const again = await openSse(`${base}/streams/c`, auth());
      expect(again.res.status).toBe(200);
      for (const c of [...open.slice(1), again]) c.close();
      await eventually(() => sse.size === 0);
      expect(counted.sse).toBe(0);
    });

    it('drops a client that stops reading once it falls further behind than the limit', async () => {
      const c = await openSse(`${base}/slow/big`, auth());
      // the client reads nothing while large events pile up: socket buffers fill, writes
      // wait for drain, and the subscription's queue overflows
      const big = 'x'.repeat(512 * 1024);
      const meta = { org_id: 'o', principal: { kind: 'user' as const, id: 'u1' }, request_id: 'r', correlation_id: null, occurred_at: 1 };
      const total = 64;
      for (let i = 0; i < total; i++) {
        await store.append([{ stream: 's-big', expectedRevision: 'any', events: [{ ...eventFromLog('multi', { text: big }), metadata: meta }] }]);
        signal.notifyCommitted();
        await new Promise((r) => setImmediate(r));
      }
      const rest = await c.rest(); // ends: the server closed the stream
      const delivered = rest.filter((b) => b.event === 'multi').length;
      expect(delivered).toBeLessThan(total);
      expect(slowSse.size).toBe(0);
    });

    it('refuses a bad credential before streaming', async () => {
      const r = await fetch(`${base}/streams/a`, { headers: { authorization: 'Bearer sk_nope' } });
      expect(r.status).toBe(401);
      expect(sse.size).toBe(0);
    });
  });

  describe('WebSocket', () => {
    const wsUrl = () => base.replace(/^http/, 'ws') + '/ws';

    /** a real ws client that records messages and its close code */
    function connect(headers: Record<string, string> = {}, options: WebSocket.ClientOptions = {}) {
      const ws = new WebSocket(wsUrl(), { headers, ...options });
      const messages: Record<string, unknown>[] = [];
      let waiters: (() => void)[] = [];
      ws.on('message', (d) => {
        messages.push(JSON.parse(d.toString()));
        for (const w of waiters.splice(0)) w();
      });
      const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
      const opened = new Promise<void>((resolve, reject) => {
        ws.on('open', () => resolve());
        ws.on('error', reject);
      });
      let read = 0;
      const next = async (): Promise<Record<string, unknown>> => {
        while (messages.length <= read) await new Promise<void>((r) => waiters.push(r));
        return messages[read++];
      };
      /** the next message that is not a heartbeat */
      const nextOf = async (): Promise<Record<string, unknown>> => {
        for (;;) {
          const m = await next();
          if (m.type !== 'heartbeat') return m;
        }
      };
      return { ws, messages, closed, opened, next, nextOf, send: (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)), clearWaiters: () => (waiters = []) };
    }

    it('authenticates by Bearer on the upgrade, sends ready, then new items of the log', async () => {
      const c = connect({ authorization: `Bearer ${proKey}` });
      const ready = await c.next();
      expect(ready).toMatchObject({ type: 'ready', org_id: 'org-pro', heartbeat_s: 25, last_seq: expect.any(Number) });
      await append('other', 'ignored');
      const p = await append('w-1', 'run.started');
      expect(await c.next()).toEqual({ type: 'activity', item: { seq: p, type: 'run.started' } });
      c.send({ type: 'ping' });
      expect(await c.next()).toEqual({ type: 'pong' });
      c.ws.close();
      await c.closed;
    });

    it('authenticates by a first auth message, sending nothing before it, and takes a subscribe sent right behind it', async () => {
      const c = connect();
      await c.opened;
      await timers.whenPending(1); // the auth deadline is armed
      expect(c.messages).toEqual([]);
      const p = await append('w-9', 'early');
      c.send({ type: 'auth', token: tokens.signAccess('u1').access_token });
      c.send({ type: 'subscribe', after_seq: p - 1 });
      expect(await c.next()).toMatchObject({ type: 'ready', org_id: 'org-pro' });
      expect(await c.nextOf()).toEqual({ type: 'activity', item: { seq: p, type: 'early' } });
      c.ws.close();
    });

    it('closes with 4408 when no auth message comes in time', async () => {
      const c = connect();
      await c.opened;
      await timers.whenPending(1);
      timers.advance(10_000);
      expect((await c.closed).code).toBe(4408);
      expect(c.messages).toEqual([]);
    });

    it('closes with 4401 for a bad credential, on the upgrade or in the auth message', async () => {
      expect((await connect({ authorization: 'Bearer sk_unknown' }).closed).code).toBe(4401);
      const c = connect();
      await c.opened;
      c.send({ type: 'auth', token: 'not-a-token' });
      expect((await c.closed).code).toBe(4401);
    });

    it('closes with 4403 when the credential may not use the channel (plan)', async () => {
      expect((await connect({ authorization: `Bearer ${freeKey}` }).closed)).toMatchObject({ code: 4403, reason: 'plan_required' });
    });

    it('closes with 4400 on a malformed message: not JSON, unknown type, bad subscribe', async () => {
      for (const bad of ['{not json', JSON.stringify({ type: 'dance' }), JSON.stringify({ type: 'subscribe', after_seq: -1 }), JSON.stringify({ type: 'subscribe', types: 'x' })]) {
        const c = connect({ authorization: `Bearer ${proKey}` });
        await c.next();
        c.send(bad);
        expect((await c.closed).code).toBe(4400);
      }
    });

    it('closes the 11th socket of one credential with 4429', async () => {
      const open = [];
      for (let i = 0; i < 10; i++) {
        const c = connect({ authorization: `Bearer ${proKey}` });
        await c.next();
        open.push(c);
      }
      expect(counted.websocket).toBe(10);
      const extra = connect({ authorization: `Bearer ${proKey}` });
      expect((await extra.closed).code).toBe(4429);
      for (const c of open) c.ws.close();
      await Promise.all(open.map((c) => c.closed));
      await eventually(() => counted.websocket === 0);
    });

    it('subscribe replaces the filter and replays after after_seq (at most the limit), then goes live', async () => {
      const first = await append('w-1', 'a');
      await append('w-1', 'b', 'c', 'b');
      const c = connect({ authorization: `Bearer ${proKey}` });
      await c.next();
      c.send({ type: 'subscribe', types: ['b', 'live'], after_seq: first });
      const replay = [await c.nextOf(), await c.nextOf()];
      expect(replay.map((m) => (m.item as { type: string }).type)).toEqual(['b', 'b']);
      const p = await append('w-2', 'c', 'live');
      expect(await c.nextOf()).toEqual({ type: 'activity', item: { seq: p, type: 'live' } });

      // more than the replay limit (3): the rest of the replay is skipped with an error, live goes on
      c.send({ type: 'subscribe', after_seq: 0 });
      const got = [await c.nextOf(), await c.nextOf(), await c.nextOf(), await c.nextOf()];
      expect(got.slice(0, 3).every((m) => m.type === 'activity')).toBe(true);
      expect(got[3]).toMatchObject({ type: 'error', code: 'replay_truncated' });
      const live = await append('w-3', 'later');
      expect(await c.nextOf()).toEqual({ type: 'activity', item: { seq: live, type: 'later' } });
      c.ws.close();
    });

    it('sends heartbeats every 25 s and closes a peer that does not answer pings within 60 s', async () => {
      const c = connect({ authorization: `Bearer ${proKey}` }, { autoPong: false });
      await c.next();
      timers.advance(25_000);
      expect(await c.next()).toEqual({ type: 'heartbeat', at: new Date(1_800_000_025_000).toISOString() });
      timers.advance(60_000);
      const closed = await c.closed;
      expect(closed.code === 1001 || closed.code === 1006).toBe(true);
    });

    it('keeps a peer that answers pings', async () => {
      const c = connect({ authorization: `Bearer ${proKey}` });
      let pings = 0;
      const pinged = () => new Promise<void>((r) => c.ws.once('ping', () => (pings++, r())));
      await c.next();
      for (let i = 0; i < 4; i++) {
        const p = pinged();
        timers.advance(25_000);
        await p;
        await eventually(() => timers.size === 1); // the pong reached the server: only the beat is left
      }
      expect(pings).toBe(4);
      expect(c.ws.readyState).toBe(WebSocket.OPEN);
      c.ws.close();
    });

    it('an access token expiring mid-connection sends token_expired, then closes with 4401', async () => {
      const c = connect({ authorization: `Bearer ${tokens.signAccess('u1').access_token}` });
      await c.next();
      clock.advance(901);
      timers.advance(25_000);
      expect(await c.next()).toEqual({ type: 'error', code: 'token_expired', error: expect.any(String) });
      expect((await c.closed).code).toBe(4401);
    });

    it('a key revoked mid-connection closes the socket with 4401 at the next heartbeat', async () => {
      const c = connect({ authorization: `Bearer ${proKey}` });
      await c.next();
      directory.keys.delete(sha256Hex(proKey));
      directory.change({ kind: 'key', key_id: 'k-pro' });
      timers.advance(25_000);
      expect((await c.closed).code).toBe(4401);
    });

    it('closes every socket with 1001 when the server shuts down', async () => {
      const c = connect({ authorization: `Bearer ${proKey}` });
      await c.next();
      const closing = app.close();
      expect((await c.closed).code).toBe(1001);
      await closing;
    });
  });
});
