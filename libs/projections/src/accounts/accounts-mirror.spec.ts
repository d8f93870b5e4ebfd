import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AccountEventTypes as T, ApiKeyCreatedData } from '@strata/domain/accounts';
import { EventMetadata, Streams, eventFromLog } from '@strata/domain/events';
import { FixedClock } from '@strata/domain/time';

const clock = new FixedClock();
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { generateApiKeySecret, sha256Hex } from '@strata/auth/tokens/secrets';
import { TokenService } from '@strata/auth/tokens/token.service';
import { isAccountStream } from './account-streams';
import { AccountsMirror } from './accounts-mirror';

const meta = (org: string): EventMetadata => ({ org_id: org, principal: { kind: 'user', id: 'u1' }, request_id: 'r', occurred_at: clock.now() });

function orgEvents(log: SqliteEventStore, org: string, plan: 'free' | 'pro' = 'free') {
  return log.append([
    {
      stream: Streams.org(org),
      expectedRevision: 'no_stream',
      events: [{ type: T.OrganizationCreated, data: { org_id: org, name: org, created_by: 'u1', plan, created_at: 1 }, metadata: meta(org) }],
    },
  ]);
}

async function createKey(log: SqliteEventStore, org: string, keyId: string) {
  const secret = generateApiKeySecret();
  const data: ApiKeyCreatedData = {
    key_id: keyId, org_id: org, name: 'k', prefix: secret.slice(0, 13), secret_sha256: sha256Hex(secret), scopes: ['read', 'write'],
    expires_at: null, space_uids: null, project_uids: null, agent_id: null, created_by: 'u1', created_at: 1, rotated_from: null,
  };
  const appended = await log.append([{ stream: Streams.apiKey(keyId), expectedRevision: 'no_stream', events: [{ type: T.ApiKeyCreated, data, metadata: meta(org) }] }]);
  return { secret, appended };
}

function revokeKey(log: SqliteEventStore, org: string, keyId: string) {
  return log.append([
    { stream: Streams.apiKey(keyId), expectedRevision: 0, events: [{ type: T.ApiKeyRevoked, data: { key_id: keyId, org_id: org, revoked_by: 'u1', at: 2 }, metadata: meta(org) }] },
  ]);
}

function graphEvent(log: SqliteEventStore, org: string, uid: string) {
  return log.append([{ stream: Streams.node(org, uid), expectedRevision: 'no_stream', events: [{ ...eventFromLog('NodeCreated', { node: { uid } }), metadata: meta(org) }] }]);
}

function resolverOn(m: AccountsMirror) {
  return new CredentialResolver(m.readModel, new TokenService('x'.repeat(32), 900, 3600, clock), clock);
}

describe('account streams', () => {
  it('are the org-, user- and apikey- streams, never graph streams', () => {
    expect(['org-1', 'user-1', 'apikey-1'].map(isAccountStream)).toEqual([true, true, true]);
    expect([Streams.node('org', 'u'), Streams.edge('o', 'e'), Streams.graph('o'), Streams.job('o', 'j'), 'organization-x'].map(isAccountStream)).toEqual([false, false, false, false, false]);
  });
});

describe('AccountsMirror', () => {
  let dir: string;
  let log: SqliteEventStore;
  const mirrors: AccountsMirror[] = [];
  const mirror = () => {
    const m = new AccountsMirror(log);
    mirrors.push(m);
    return m;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-mirror-'));
    log = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    for (const m of mirrors.splice(0)) await m.close();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('replays the account events at start, is at the head of the log, then follows it live', async () => {
    await orgEvents(log, 'o1', 'pro');
    const k1 = await createKey(log, 'o1', 'k1');
    const head = await graphEvent(log, 'o1', 'n1');
    const m = mirror();
    expect(await m.start()).toEqual({ events: 2, position: head.position });
    expect(m.readModel.planOf('o1')).toBe('pro');
    expect(m.readModel.keyBySecretHash(sha256Hex(k1.secret))?.key_id).toBe('k1');

    const k2 = await createKey(log, 'o1', 'k2');
    expect(await m.waitFor(k2.appended.position, 2000)).toBe(true);
    expect(m.readModel.keyBySecretHash(sha256Hex(k2.secret))?.key_id).toBe('k2');
    // graph events move the position too, so "the log's head" can be waited for
    const g = await graphEvent(log, 'o1', 'n2');
    expect(await m.waitFor(g.position, 2000)).toBe(true);
    expect(m.position).toBe(g.position);
  });

  it('two replicas agree: a key created through the log authenticates on both, and a revocation reaches both', async () => {
    await orgEvents(log, 'o1');
    const a = mirror();
    const b = mirror();
    await a.start();
    await b.start();
    const ra = resolverOn(a);
    const rb = resolverOn(b);
    const { secret, appended } = await createKey(log, 'o1', 'k1');
    expect(await a.waitFor(appended.position, 2000)).toBe(true);
    expect(ra.resolve(secret)).toMatchObject({ org_id: 'o1', api_key_id: 'k1', scopes: ['read', 'write'] });
    expect(await b.waitFor(appended.position, 2000)).toBe(true);
    expect(rb.resolve(secret).api_key_id).toBe('k1');
    expect(rb.size.keys).toBe(1); // cached on B

    const revoked = await revokeKey(log, 'o1', 'k1');
    expect(await a.waitFor(revoked.position, 2000)).toBe(true);
    expect(await b.waitFor(revoked.position, 2000)).toBe(true);
    expect(() => ra.resolve(secret)).toThrow();
    expect(() => rb.resolve(secret)).toThrow(); // the cached credential was evicted
  });

  it('hands every followed event to its followers, account or not', async () => {
    const m = mirror();
    await m.start();
    const seen: string[] = [];
    m.onFollowed((e) => seen.push(e.type));
    await orgEvents(log, 'o1');
    const g = await graphEvent(log, 'o1', 'n1');
    expect(await m.waitFor(g.position, 2000)).toBe(true);
    expect(seen).toEqual([T.OrganizationCreated, 'NodeCreated']);
  });

  it('tells every projection of a rolled-back transaction, so none writes what it held from it later', async () => {
    const m = mirror();
    await m.start();
    const failing = {
      name: 'failing',
      version: 1,
      init: () => undefined,
      reset: () => undefined,
      apply: (e: { type: string }) => {
        if (e.type === T.OrganizationCreated) throw new Error('cannot apply');
      },
      rolledBack: jest.fn(),
    };
    const bystander = { ...failing, name: 'bystander', apply: () => undefined, rolledBack: jest.fn() };
    // the mirror's started projections are its own; two stand-ins join them for this test
    (m as unknown as { started: unknown[] }).started.push(bystander, failing);
    const g = (await orgEvents(log, 'o1'), await graphEvent(log, 'o1', 'n1'));
    expect(await m.waitFor(g.position, 2000)).toBe(true);
    expect(failing.rolledBack).toHaveBeenCalledTimes(1);
    expect(bystander.rolledBack).toHaveBeenCalledTimes(1);
    expect(m.readModel.planOf('o1')).toBeNull(); // the rollback took the organization's row too
  });

  it('a wait for a position the log never reaches ends false at its timeout, and at close', async () => {
    const m = mirror();
    await m.start();
    expect(await m.waitFor(0, 10)).toBe(true);
    expect(await m.waitFor(1_000, 30)).toBe(false);
    const pending = m.waitFor(1_000, 60_000);
    await m.close();
    expect(await pending).toBe(false);
  });
});
