import { Errors } from '@strata/domain/errors';
import { AddressNotAllowedError, NetworkError, resolveChecked } from '@strata/mcp/client/guarded-fetch';
import { HostResolver } from '@strata/mcp/client/host-resolver';

/**
 * A webhook recipient named by a DNS name is resolved when the schedule is created or replaced
 * (REFERENCE §12.7): a name with a loopback, link-local or private address is refused now,
 * 400 `invalid_field` on `recipient`, as an address given literally is. A name that does not
 * resolve now is accepted: every delivery attempt resolves and checks it again.
 */
export async function assertPublicWebhookHost(recipient: string, allowPrivate: boolean, resolver: HostResolver): Promise<void> {
  if (allowPrivate) return;
  try {
    await resolveChecked(new URL(recipient).hostname, false, resolver);
  } catch (err) {
    if (err instanceof AddressNotAllowedError) throw Errors.invalidField('recipient', `a webhook URL may not point at a loopback, link-local or private address: ${err.message}`);
    if (err instanceof NetworkError) return;
    throw err;
  }
}
