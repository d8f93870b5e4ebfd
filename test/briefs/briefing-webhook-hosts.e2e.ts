import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { isPublicAddress } from '@strata/domain/mcp';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §12.7: a webhook host given as a DNS name is resolved and checked when the schedule is created or replaced. */
describe('briefing webhook hosts named by DNS', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, briefings: { webhookAllowPrivate: false, smtpUrl: null, smtpFrom: null } });
  });
  afterAll(() => t.close());

  it('a name resolving to a private address is refused at create (400 invalid_field, nothing written); an unresolvable one waits for delivery', async () => {
    // this machine's own name resolves locally to a loopback or private address (the precondition of the test)
    const local = hostname();
    const addresses = await lookup(local, { all: true });
    expect(addresses.some((a) => !isPublicAddress(a.address))).toBe(true);

    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const project = (await o.post('/node', { label: 'Orion', node_type: 'Project' })).body.uid;
    const body = (recipient: string) => ({ project_uid: project, channel: 'webhook', recipient, interval_secs: 3600 });

    const refused = await o.post('/v1/briefings/schedules', body(`https://${local}/hooks/strata`));
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([400, 'invalid_field', 'recipient']);
    expect((await o.get('/v1/briefings/schedules')).body.items).toEqual([]);
    // literal addresses and localhost were already refused by the input rules
    expect((await o.post('/v1/briefings/schedules', body('https://127.0.0.1/hook'))).body.code).toBe('invalid_field');

    const later = await o.post('/v1/briefings/schedules', body('https://no-such-host.invalid/hook'));
    expect(later.status).toBe(201);
    expect(later.body.signing_secret).toMatch(/^whsec_/);
    expect((await o.get('/v1/briefings/schedules')).body.items).toHaveLength(1);
  });

  it('with private targets allowed (self-hosted networks, tests), the same name is accepted', async () => {
    const open = await startTestApp({ clock, briefings: { webhookAllowPrivate: true, smtpUrl: null, smtpFrom: null } });
    try {
      const owner = await signUp(open.url);
      const o = api(open.url, owner.access_token);
      const project = (await o.post('/node', { label: 'Orion', node_type: 'Project' })).body.uid;
      const r = await o.post('/v1/briefings/schedules', { project_uid: project, channel: 'webhook', recipient: `https://${hostname()}/hooks/strata`, interval_secs: 3600 });
      expect(r.status).toBe(201);
    } finally {
      await open.close();
    }
  });
});
