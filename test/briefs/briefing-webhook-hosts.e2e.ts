import { FixedClock } from '@strata/domain/time';
import { HostResolver, ResolvedAddress } from '@strata/mcp/client/host-resolver';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * A resolver that answers from a table, as a DNS server would: names it does not know fail like
 * an unknown name (ENOTFOUND). Every name it was asked is kept.
 */
class TableResolver implements HostResolver {
  readonly asked: string[] = [];
  constructor(private readonly table: Record<string, ResolvedAddress[]>) {}
  async lookup(host: string): Promise<ResolvedAddress[]> {
    this.asked.push(host);
    const found = this.table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  }
}

/** REFERENCE §12.7: a webhook host given as a DNS name is resolved and checked when the schedule is created or replaced. */
describe('briefing webhook hosts named by DNS', () => {
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  const noMail = { smtpUrl: null, smtpFrom: null };
  const resolver = new TableResolver({
    'intranet.example': [{ address: '10.1.2.3', family: 4 }],
    'mixed.example': [
      { address: '93.184.216.34', family: 4 },
      { address: 'fd00::7', family: 6 },
    ],
    'loop.example': [{ address: '::1', family: 6 }],
    'hooks.example': [{ address: '93.184.216.34', family: 4 }],
  });
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock, briefings: { webhookAllowPrivate: false, ...noMail }, hostResolver: resolver });
  });
  afterAll(() => t.close());

  async function world(base: string) {
    const owner = await signUp(base);
    const o = api(base, owner.access_token);
    const project = (await o.post('/node', { label: 'Orion', node_type: 'Project' })).body.uid;
    return { o, body: (recipient: string) => ({ project_uid: project, channel: 'webhook', recipient, interval_secs: 3600 }) };
  }

  it('a name with any private, loopback or link-local address is refused at create (400 invalid_field, nothing written); an unresolvable one waits for delivery', async () => {
    const { o, body } = await world(t.url);
    for (const host of ['intranet.example', 'mixed.example', 'loop.example']) {
      const refused = await o.post('/v1/briefings/schedules', body(`https://${host}/hooks/strata`));
      expect([host, refused.status, refused.body.code, refused.body.field]).toEqual([host, 400, 'invalid_field', 'recipient']);
    }
    expect(resolver.asked).toEqual(['intranet.example', 'mixed.example', 'loop.example']);
    expect((await o.get('/v1/briefings/schedules')).body.items).toEqual([]);
    // literal addresses and localhost are refused by the input rules, before any resolution
    expect((await o.post('/v1/briefings/schedules', body('https://127.0.0.1/hook'))).body.code).toBe('invalid_field');
    expect(resolver.asked).toHaveLength(3);

    const public_ = await o.post('/v1/briefings/schedules', body('https://hooks.example/strata'));
    expect(public_.status).toBe(201);
    expect(public_.body.signing_secret).toMatch(/^whsec_/);
    const later = await o.post('/v1/briefings/schedules', body('https://no-such-host.invalid/hook'));
    expect(later.status).toBe(201);
    expect((await o.get('/v1/briefings/schedules')).body.items).toHaveLength(2);
  });

  it('with private targets allowed (self-hosted networks, tests), a private name is accepted without being resolved', async () => {
    const before = resolver.asked.length;
    const open = await startTestApp({ clock, briefings: { webhookAllowPrivate: true, ...noMail }, hostResolver: resolver });
    try {
      const { o, body } = await world(open.url);
      expect((await o.post('/v1/briefings/schedules', body('https://intranet.example/hooks/strata'))).status).toBe(201);
      expect(resolver.asked).toHaveLength(before);
    } finally {
      await open.close();
    }
  });

  it('`localhost.` (fully qualified) is refused by the input rules like `localhost`, before any resolution', async () => {
    const { o, body } = await world(t.url);
    const before = resolver.asked.length;
    for (const host of ['localhost', 'localhost.', 'api.localhost.'])
      expect([host, (await o.post('/v1/briefings/schedules', body(`https://${host}/hook`))).body.code]).toEqual([host, 'invalid_field']);
    expect(resolver.asked).toHaveLength(before);
  });
});
