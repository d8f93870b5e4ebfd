import { FixedClock } from '@strata/domain/time';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from '../cli/cli-runner';
import { api, createApiKey, signUp } from '../support/http';
import { startTestApp } from '../support/test-app';
import { seedBriefWorld } from './brief-world';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

describe('the briefs read model is the log: a rebuild gives the same briefs, versions and grants', () => {
  it('verify finds it identical to a fresh rebuild, and the service serves the same after a rebuild', async () => {
    const clock = new FixedClock(1_790_000_000);
    let t = await startTestApp({ clock });
    const dataDir = t.dataDir;
    const owner = await signUp(t.url);
    const key = (await createApiKey(t.url, owner.access_token)).key;
    const w = api(t.url, key);
    const world = await seedBriefWorld(w);
    const brief = `/projects/${world.project}/brief`;
    expect((await w.post(`${brief}/regenerate`, {})).status).toBe(201);
    const first = (await w.get(brief)).body.brief;
    clock.advance(60);
    expect((await w.patch(`${brief}/items/${first.items[0].id}`, { action: 'pin' })).status).toBe(200);
    expect(
      (await w.patch(`${brief}/items/${first.items[1].id}`, { action: 'correct', text: 'Tiles crack', citations: [{ chunk_uid: world.chunkA, quote: 'Tiles crack' }] })).status,
    ).toBe(200);
    await w.patch(`/node/${world.never}`, { props: { content: 'Engineers say tiles never crack' } });
    clock.advance(60);
    expect((await w.post(`${brief}/regenerate`, {})).status).toBe(201);
    const o = api(t.url, owner.access_token);
    expect((await o.post(`/v1/projects/${world.project}/grants`, { principal_uid: `user:${owner.user_id}`, role: 'editor' })).status).toBe(201);
    // a removal after the last version: the brief turns stale, from the Project's sources as the log has them
    expect((await w.delete(`/node/${world.question}`)).status).toBe(200);
    const before = { state: (await w.get(brief)).body, history: (await w.get(`${brief}/history?limit=100`)).body, v2: (await w.get(`${brief}/history/2`)).body };
    await t.close({ keepData: true });

    expect(expectExit(await runCli(['projections', 'verify', 'briefs', '--data-dir', dataDir]), 0).stdout).toMatch(/identical to a fresh rebuild/);
    expectExit(await runCli(['projections', 'rebuild', 'briefs', '--data-dir', dataDir]), 0);
    // each Project's admitted sources too: the fingerprint GET shows is read from them
    expect(expectExit(await runCli(['projections', 'verify', 'project_sources', '--data-dir', dataDir]), 0).stdout).toMatch(/identical to a fresh rebuild/);
    expectExit(await runCli(['projections', 'rebuild', 'project_sources', '--data-dir', dataDir]), 0);

    t = await startTestApp({ clock, dataDir });
    try {
      const again = api(t.url, key);
      expect(before.state.status).toBe('stale');
      expect((await again.get(brief)).body).toEqual(before.state);
      expect((await again.get(`${brief}/history?limit=100`)).body).toEqual(before.history);
      expect((await again.get(`${brief}/history/2`)).body).toEqual(before.v2);
      // the corrected item keeps its correction in the rebuilt memory: a forced regeneration still applies it
      const next = (await again.post(`${brief}/regenerate`, { force: true })).body.version;
      expect(next.items.find((i: any) => i.id === first.items[1].id)?.text).toBe('Tiles crack');
    } finally {
      await t.close();
    }
  }, 120_000);
});
