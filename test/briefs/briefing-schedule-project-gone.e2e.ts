import { FixedClock } from '@strata/domain/time';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { expectError, mk } from '../retrieval/retrieval-fixture';

const S = '/v1/briefings/schedules';

/**
 * REFERENCE §12.7: a run of a schedule whose Project is gone is skipped (`project_unavailable`);
 * the owner, manager of every Project by its credential, still sees that schedule and can stop it.
 */
describe('a briefing schedule outlives its Project only as long as its owner wants', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2031-05-05T08:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, briefings: { webhookAllowPrivate: true, smtpUrl: null, smtpFrom: null } });
  });
  afterAll(() => t.close());

  it('the owner reads, pauses and deletes the schedule of a deleted Project', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const w = api(t.url, (await createApiKey(t.url, owner.access_token)).key);
    const p = await mk(w, 'Project', 'Short-lived');
    const s = (await o.post(S, { project_uid: p, channel: 'webhook', recipient: 'http://127.0.0.1:9/hook', interval_secs: 86400 })).body;
    expect((await w.delete(`/node/${p}`)).status).toBe(200);

    const run = (await o.post(`${S}/${s.id}/send-now`, {})).body.run;
    const skipped = await eventually(async () => {
      const r = await o.get(`${S}/${s.id}`);
      return r.status === 200 && r.body.runs[0]?.status === 'skipped' ? r.body.runs[0] : null;
    }, { what: 'the run skipped' });
    expect(skipped).toMatchObject({ id: run.id, skip_reason: 'project_unavailable' });
    expect((await o.get(S)).body.items.map((x: { id: string }) => x.id)).toEqual([s.id]);
    expect((await o.patch(`${S}/${s.id}`, { paused: true })).body).toMatchObject({ status: 'paused', paused_reason: 'requested' });
    expect((await o.delete(`${S}/${s.id}`)).body).toEqual({ id: s.id, deleted: true });
    expectError(await o.get(`${S}/${s.id}`), 404, 'not_found');
    // a key, which holds no role on a Project that is gone, does not see it
    expect((await w.get(S)).body.items).toEqual([]);
  });
});
