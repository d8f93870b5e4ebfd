import { INestApplicationContext } from '@nestjs/common';
import { Streams } from '@strata/domain/events';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { CliError } from './cli-error';

/**
 * Whether an organization exists. Embedded: the accounts read model, caught up by now. Servers:
 * the log itself (the organization's stream), so the answer does not depend on how far this
 * short-lived process's copy of the accounts has caught up.
 */
export async function orgExists(app: INestApplicationContext, cfg: StrataConfig, org: string): Promise<boolean> {
  if (cfg.store === 'servers') return (await app.get<EventStore>(EVENT_STORE, { strict: false }).streamRevision(Streams.org(org))) >= 0;
  return app.get(AccountsReadModel, { strict: false }).org(org) !== null;
}

/**
 * Fails with `organization … not found` unless the log holds the organization's stream (every
 * organization has one from its creation on), for the commands that read the log directly
 * (`audit replay`, `events tail`) and would otherwise answer an unknown id with silence. A log
 * that cannot say (an old embedded log opened read-only, before its stream index) is not
 * refused: the command then reads it as before.
 */
export async function requireOrgInLog(log: EventStore, org: string): Promise<void> {
  let revision: number;
  try {
    revision = await log.streamRevision(Streams.org(org));
  } catch (err) {
    if (/predates the stream index/.test((err as Error)?.message ?? '')) return;
    throw err;
  }
  if (revision < 0) throw new CliError(`organization ${org} not found`);
}
