import { INestApplicationContext } from '@nestjs/common';
import { Streams } from '@strata/domain/events';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { AccountsReadModel } from '../../../api/src/accounts/read-model/accounts-read-model';
import { StrataConfig } from '../../../api/src/platform/config/strata-config';

/**
 * Whether an organization exists. Embedded: the accounts read model, caught up by now. Servers:
 * the log itself (the organization's stream), so the answer does not depend on how far this
 * short-lived process's copy of the accounts has caught up.
 */
export async function orgExists(app: INestApplicationContext, cfg: StrataConfig, org: string): Promise<boolean> {
  if (cfg.store === 'servers') return (await app.get<EventStore>(EVENT_STORE, { strict: false }).streamRevision(Streams.org(org))) >= 0;
  return app.get(AccountsReadModel, { strict: false }).org(org) !== null;
}
