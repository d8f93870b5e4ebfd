import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { ConfigError, loadConfig } from '@strata/platform/config/strata-config';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { ServerUsageCounters } from '@strata/accounts/usage/server-usage-counters';
import { CreateOwnerService } from '@strata/accounts/create-owner.service';
import { ServerUnitOfWork } from '@strata/platform/unit-of-work/server-unit-of-work';
import { USAGE_COUNTERS } from '@strata/auth/plans/plan-limits';
import { eventually as waitFor } from '@strata/domain/testing/eventually';
import { RequestActivity } from '../../apps/api/src/accounts/activity/request-activity';
import { api, createApiKey, login, request, signUp } from '../support/http';
import { Replica, SharedServers, serversContext, startReplica } from './support/servers-replica';
import { eventFromLog } from '@strata/domain/events';

/** Waits until `check` holds (another replica sees a change within its subscription delay). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 3000): Promise<void> {
  await waitFor(check, { what, timeoutMs: ms, everyMs: 20 });
}

describe('servers mode: configuration', () => {
  const servers = {
    STRATA_STORE: 'servers',
    STRATA_KURRENTDB_URL: 'kurrentdb://k:2113?tls=false',
    STRATA_MONGO_URL: 'mongodb://m:27017',
    STRATA_MEILI_URL: 'http://s:7700',
    STRATA_QDRANT_URL: 'http://q:6333',
  };
  it('refuses to start without STRATA_JWT_SECRET, which every replica must share', () => {
    expect(() => loadConfig(servers)).toThrow(ConfigError);
    expect(() => loadConfig(servers)).toThrow(/STRATA_STORE=servers needs STRATA_JWT_SECRET/);
    expect(loadConfig({ ...servers, STRATA_JWT_SECRET: 'a'.repeat(32) }).jwtSecret).toBe('a'.repeat(32));
    expect(loadConfig({}).jwtSecret).toBeNull(); // embedded: generated into the data dir
  });
});

describe('servers mode: accounts and authentication across API replicas', () => {
  let servers: SharedServers;
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    servers = new SharedServers();
    a = await startReplica(servers);
    b = await startReplica(servers);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await servers?.close();
  });

  it('compiles with the server adapters: accounts come from the log mirror, nothing is written to the data dir', async () => {
    const mirror = a.app.get(AccountsMirror);
    expect(mirror).toBeInstanceOf(AccountsMirror);
    expect(a.app.get(AccountsReadModel)).toBe(mirror.readModel);
    expect(a.app.get(ACCOUNTS_UNIT_OF_WORK)).toBeInstanceOf(ServerUnitOfWork);
    expect(a.app.get(USAGE_COUNTERS)).toBeInstanceOf(ServerUsageCounters);
    expect((await request(a.url, 'GET', '/health')).status).toBeLessThan(500);
    const s = await signUp(a.url);
    await api(a.url, s.access_token).get('/v1/account');
    await a.app.get(RequestActivity).flush(); // what the flush timer would write
    expect(fs.readdirSync(a.dataDir)).toEqual([]); // no jwt-secret, no ops.db, no events.db
  });

  it('a key created on one replica works there at once and on the other within the subscription delay', async () => {
    const s = await signUp(a.url);
    const key = await createApiKey(a.url, s.access_token, { scopes: ['read'] });
    const onA = await api(a.url, key.key).get('/v1/usage');
    expect(onA.status).toBe(200);
    expect(onA.body.org_id).toBe(s.org_id);
    await eventually(async () => (await api(b.url, key.key).get('/v1/usage')).status === 200, 'key usable on B');
    // the fast lane (GET /node/{uid}) authenticates through the same mirror: 404, not 401
    expect((await api(b.url, key.key).get('/node/no-such-node')).status).toBe(404);
    // one JWT secret: a token signed by A is accepted by B, and B signs in the same user
    expect((await api(b.url, s.access_token).get('/v1/account')).status).toBe(200);
    expect((await login(b.url, s.email, s.password)).access_token).toBeTruthy();
  });

  it('a revocation on one replica is refused there at once and on the other within the subscription delay', async () => {
    const s = await signUp(a.url);
    const key = await createApiKey(a.url, s.access_token);
    await eventually(async () => (await api(b.url, key.key).get('/v1/usage')).status === 200, 'key usable on B');
    expect((await api(b.url, key.key).get('/v1/usage')).status).toBe(200); // cached on B now
    expect((await api(a.url, s.access_token).delete(`/v1/api-keys/${key.id}`)).status).toBe(200);
    const refused = await api(a.url, key.key).get('/v1/usage');
    expect([refused.status, refused.body.code]).toEqual([401, 'invalid_token']);
    await eventually(async () => (await api(b.url, key.key).get('/v1/usage')).status === 401, 'revocation reaches B');
  });

  it('a plan change, membership and role on one replica are what the other decides with', async () => {
    const owner = await signUp(a.url);
    const member = await signUp(a.url);
    expect((await api(a.url, owner.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const added = await api(a.url, owner.access_token).post(`/v1/orgs/${owner.org_id}/members`, { email: member.email, role: 'admin' });
    expect(added.status).toBe(201);
    await eventually(async () => (await api(b.url, owner.access_token).get('/v1/billing/subscription')).body?.plan === 'pro', 'plan on B');
    // the new admin, through B, creates a key in the owner's organization
    await eventually(async () => (await api(b.url, member.access_token, { org: owner.org_id }).get('/v1/api-keys')).status === 200, 'membership on B');
    const k = await createApiKey(b.url, member.access_token, { org: owner.org_id });
    expect((await api(b.url, k.key).get('/v1/usage')).body.plan).toBe('pro');
  });

  it('live-node counts for plan limits follow node events from the log on every replica', async () => {
    const s = await signUp(a.url);
    const counters = [a, b].map((r) => r.app.get<ServerUsageCounters>(USAGE_COUNTERS));
    await eventually(async () => counters.every((c) => c.liveNodes(s.org_id, false) === 0), 'new organization at zero');
    // a node written through any replica (the graph unit of work appends NodeCreated)
    const metadata = { org_id: s.org_id, principal: { kind: 'user' as const, id: s.user_id }, request_id: 'r', occurred_at: 1_700_000_000 };
    await servers.log.append([{ stream: `node-${s.org_id}:n1`, expectedRevision: 'no_stream', events: [{ ...eventFromLog('NodeCreated', { node: { uid: 'n1' }, reason: null }), metadata }] }]);
    await eventually(async () => counters.every((c) => c.liveNodes(s.org_id, false) === 1), 'node counted on both replicas');
  });

  it('request activity recorded by one replica shows through the other', async () => {
    const s = await signUp(a.url);
    const key = await createApiKey(a.url, s.access_token);
    await eventually(async () => (await api(b.url, key.key).get('/v1/usage')).status === 200, 'key usable on B');
    await b.app.get(RequestActivity).flush(); // what B's flush timer writes once a second
    const act = await api(a.url, s.access_token).get(`/v1/api-keys/${key.id}/activity`);
    expect(act.status).toBe(200);
    expect(act.body.items.filter((i: { type: string }) => i.type === 'request').length).toBeGreaterThanOrEqual(1);
    const list = await api(a.url, s.access_token).get('/v1/api-keys');
    expect(list.body.items[0].last_used_at).not.toBeNull();
  });

  it('a replica started later replays the accounts log before it serves', async () => {
    const s = await signUp(a.url);
    const kept = await createApiKey(a.url, s.access_token);
    const gone = await createApiKey(a.url, s.access_token);
    await api(a.url, s.access_token).delete(`/v1/api-keys/${gone.id}`);
    const c = await startReplica(servers);
    try {
      expect((await api(c.url, kept.key).get('/v1/usage')).status).toBe(200);
      expect((await api(c.url, gone.key).get('/v1/usage')).status).toBe(401);
      expect((await api(c.url, s.access_token).get('/v1/account')).body.user.email).toBe(s.email);
    } finally {
      await c.close();
    }
  });

  it('strata admin create-owner appends to the shared log; the owner signs in on every replica', async () => {
    const ctx = await serversContext(servers);
    let created;
    try {
      created = await ctx.get(CreateOwnerService, { strict: false }).createOwner({
        email: `ops-${randomUUID()}@example.test`,
        org: 'Servers Org',
        password: 'Correct-horse-battery-9',
        name: null,
        operator: 'test',
        request_id: 'cli-test',
      });
    } finally {
      await ctx.close();
    }
    expect(created).toMatchObject({ created_user: true, created_org: true, org_name: 'Servers Org' });
    await eventually(async () => (await request(a.url, 'POST', '/v1/auth/login', { body: { email: created.email, password: 'Correct-horse-battery-9' } })).status === 200, 'owner on A');
    const t = await login(b.url, created.email, 'Correct-horse-battery-9');
    const orgs = await api(b.url, t.access_token).get('/v1/orgs');
    expect(orgs.body.items).toEqual([expect.objectContaining({ id: created.org_id, role: 'owner' })]);
  });
});
