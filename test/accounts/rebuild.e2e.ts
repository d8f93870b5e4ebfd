import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { ACCOUNT_TABLES } from '@strata/projections/accounts/accounts-schema';
import { startTestApp } from '../support/test-app';
import { FixedClock } from '@strata/domain/time';
import { api, createApiKey, request, signUp } from '../support/http';
import { RequestActivity } from '../../apps/api/src/accounts/activity/request-activity';

function dumpAccounts(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'projections.db'), { readonly: true });
  try {
    return JSON.stringify(ACCOUNT_TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all()]));
  } finally {
    db.close();
  }
}

/** The accounts read model is derived from the log: drop it, restart, and everything is the same. */
describe('accounts projection rebuild', () => {
  it('rebuilds identical rows and the same behaviour from the event log', async () => {
    const clock = new FixedClock();
    const t = await startTestApp({ clock });
    const dataDir = t.dataDir;
    try {
      const a = await signUp(t.url, { org: 'Rebuild A' });
      const b = await signUp(t.url, { org: 'Rebuild B' });
      const ua = api(t.url, a.access_token);
      const second = (await ua.post('/v1/orgs', { name: 'Second' })).body.id;
      await ua.post(`/v1/orgs/${a.org_id}/members`, { email: b.email, role: 'member' });
      await ua.post(`/v1/orgs/${a.org_id}/members`, { email: b.email, role: 'admin' });
      await ua.post(`/v1/orgs/${second}/members`, { email: b.email, role: 'viewer' });
      await ua.delete(`/v1/orgs/${second}/members/${b.user_id}`);
      const keep = await createApiKey(t.url, a.access_token, { scopes: ['read'], agent_id: 'agent-r' });
      const revoked = await createApiKey(t.url, a.access_token);
      await ua.delete(`/v1/api-keys/${revoked.id}`);
      const rotated = await createApiKey(t.url, a.access_token, { expires_at: new Date((clock.now() + 3600) * 1000).toISOString() });
      const replacement = (await ua.post(`/v1/api-keys/${rotated.id}/rotate`, { overlap_seconds: 3600 })).body;
      await ua.post('/v1/billing/subscribe', { plan: 'team' });
      const r1 = (await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: a.refresh_token } })).body;
      await api(t.url, keep.key).get('/nodes');

      const views = async (url: string) =>
        JSON.stringify([
          (await api(url, a.access_token).get('/v1/account')).body,
          (await api(url, a.access_token).get('/v1/orgs')).body,
          (await api(url, a.access_token).get(`/v1/orgs/${a.org_id}/members`)).body,
          (await api(url, a.access_token).get(`/v1/orgs/${second}/members`)).body,
          (await api(url, a.access_token).get('/v1/api-keys')).body,
          (await api(url, a.access_token).get('/v1/billing/subscription')).body,
          (await api(url, b.access_token).get('/v1/orgs')).body,
        ]);
      await t.app.get(RequestActivity).flush(); // request activity written
      const before = await views(t.url);
      await t.close({ keepData: true });
      const rowsBefore = dumpAccounts(dataDir);

      for (const f of ['projections.db', 'projections.db-wal', 'projections.db-shm']) fs.rmSync(path.join(dataDir, f), { force: true });
      const t2 = await startTestApp({ dataDir, clock });
      try {
        expect(dumpAccounts(dataDir)).toBe(rowsBefore); // byte for byte, before anything new is written
        expect(await views(t2.url)).toBe(before);
        expect((await api(t2.url, keep.key).get('/nodes')).status).toBe(200);
        expect((await api(t2.url, revoked.key).get('/nodes')).status).toBe(401);
        expect((await api(t2.url, rotated.key).get('/nodes')).status).toBe(200); // still in its overlap
        expect((await api(t2.url, replacement.key).get('/nodes')).status).toBe(200);
        // the used refresh token is still known as used: reuse detection survives the rebuild
        expect((await request(t2.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: a.refresh_token } })).status).toBe(400);
        expect((await request(t2.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: r1.refresh_token } })).status).toBe(400);
      } finally {
        await t2.close({ keepData: true });
      }
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
