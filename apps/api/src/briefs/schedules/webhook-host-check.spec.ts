import { DomainError } from '@strata/domain/errors';
import { HostResolver, systemHostResolver } from '@strata/mcp/client/host-resolver';
import { assertPublicWebhookHost } from './webhook-host-check';

describe('assertPublicWebhookHost', () => {
  it('with the system resolver, `localhost` resolves to loopback only and is refused (400 invalid_field on recipient)', async () => {
    const addresses = await systemHostResolver.lookup('localhost');
    expect(addresses.length).toBeGreaterThan(0);
    for (const a of addresses) expect(['127.0.0.1', '::1']).toContain(a.address);
    const err = await assertPublicWebhookHost('https://localhost/hooks/strata', false, systemHostResolver).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect([(err as DomainError).status, (err as DomainError).toBody()]).toEqual([400, expect.objectContaining({ code: 'invalid_field', field: 'recipient' })]);
  });

  it('asks the resolver it is given: a public answer passes, an unknown name waits for delivery, private targets allowed skip it', async () => {
    const asked: string[] = [];
    const resolver: HostResolver = {
      lookup: async (host) => {
        asked.push(host);
        if (host === 'hooks.example') return [{ address: '93.184.216.34', family: 4 }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    };
    await expect(assertPublicWebhookHost('https://hooks.example/x', false, resolver)).resolves.toBeUndefined();
    await expect(assertPublicWebhookHost('https://gone.example/x', false, resolver)).resolves.toBeUndefined();
    await expect(assertPublicWebhookHost('https://intranet.example/x', true, resolver)).resolves.toBeUndefined();
    expect(asked).toEqual(['hooks.example', 'gone.example']);
    const refusing: HostResolver = { lookup: async () => [{ address: '192.168.1.9', family: 4 }] };
    const err = await assertPublicWebhookHost('https://printer.example/x', false, refusing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
  });
});
