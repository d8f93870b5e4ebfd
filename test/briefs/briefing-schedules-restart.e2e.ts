import { FixedClock } from '@strata/domain/time';
import { eventually } from '@strata/domain/testing/eventually';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from '../cli/cli-runner';
import { api, createApiKey, signUp } from '../support/http';
import { startTestApp } from '../support/test-app';
import { expectError } from '../retrieval/retrieval-fixture';
import { seedBriefWorld } from './brief-world';
import { at } from '@strata/domain/testing/fixed-time';

const S = '/v1/briefings/schedules';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

describe('briefing schedules across a restart (REFERENCE §12.7)', () => {
  it('catches up the latest missed fire under one period old, drops older ones, and rebuilds to the same runs', async () => {
    // 2026-06-01 is a Monday
    const clock = new FixedClock(at('2026-06-01T08:00:00Z'));
    let t = await startTestApp({ clock, accessTokenTtl: 7 * 86400 });
    const dataDir = t.dataDir;
    const owner = await signUp(t.url);
    const key = (await createApiKey(t.url, owner.access_token)).key;
    const world = await seedBriefWorld(api(t.url, key));
    let o = api(t.url, owner.access_token);
    const hourly = (await o.post(S, { project_uid: world.project, channel: 'in_app', recipient: `user:${owner.user_id}`, interval_secs: 3600 })).body;
    const weekly = (await o.post(S, { project_uid: world.other, channel: 'in_app', recipient: `user:${owner.user_id}`, cron: '0 9 * * MON' })).body;
    expect(hourly.next_run_at).toBe('2026-06-01T09:00:00.000Z');
    expect(weekly.next_run_at).toBe('2026-06-01T09:00:00.000Z');
    // e-mail needs SMTP settings: without them, 501 and nothing written
    expectError(await o.post(S, { project_uid: world.project, channel: 'email', recipient: 'a@example.com', interval_secs: 3600 }), 501, 'not_implemented', 'channel');
    await t.close({ keepData: true });

    // down for two days and a half hour
    clock.set(at('2026-06-03T10:30:00Z'));
    t = await startTestApp({ clock, dataDir, accessTokenTtl: 7 * 86400 });
    o = api(t.url, owner.access_token);
    let before: unknown;
    try {
      // the hourly one: missed fires collapse into one catch-up of the latest (10:00, 30 min old)
      const h = await eventually(async () => {
        const g = (await o.get(`${S}/${hourly.id}`)).body;
        return g.runs.length === 1 && g.runs[0].status === 'delivered' ? g : null;
      }, { what: 'the catch-up run delivered' });
      expect(h.runs[0]).toMatchObject({ trigger: 'catch_up', scheduled_for: '2026-06-03T10:00:00.000Z', brief_version: 1 });
      expect(h.next_run_at).toBe('2026-06-03T11:00:00.000Z');
      // the weekly one: its missed Monday fire is over 24 h old, so it is dropped and the schedule moves on
      const wk = (await o.get(`${S}/${weekly.id}`)).body;
      expect(wk.runs).toEqual([]);
      expect(wk.next_run_at).toBe('2026-06-08T09:00:00.000Z');
      expect(wk.status).toBe('active');
      expect((await o.get(S)).body.items.map((s: any) => s.id)).toEqual([hourly.id, weekly.id].sort()); // same created_at: ties by id
      before = { hourly: h, weekly: wk, list: (await o.get(S)).body };
    } finally {
      await t.close({ keepData: true });
    }

    expect(expectExit(await runCli(['projections', 'verify', 'briefs', '--data-dir', dataDir]), 0).stdout).toMatch(/identical to a fresh rebuild/);
    expectExit(await runCli(['projections', 'rebuild', 'briefs', '--data-dir', dataDir]), 0);
    t = await startTestApp({ clock, dataDir, accessTokenTtl: 7 * 86400 });
    try {
      o = api(t.url, owner.access_token);
      expect({ hourly: (await o.get(`${S}/${hourly.id}`)).body, weekly: (await o.get(`${S}/${weekly.id}`)).body, list: (await o.get(S)).body }).toEqual(before);
    } finally {
      await t.close();
    }
  }, 180_000);
});
