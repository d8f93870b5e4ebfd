import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateOwnerService, looksLikeOrgId } from '@strata/accounts/create-owner.service';
import { EVENTS_FILE } from '@strata/platform/storage/embedded-storage';
import { CliError } from '../support/cli-error';
import { GlobalOptions, cliConfig } from '../support/cli-config';
import { withAppContext } from '../support/app-context';
import { cliRequestId, operatorId } from '../support/operator';
import { writeOut } from '../support/output';
import { readInput } from '../support/read-input';
import type { Clock } from '@strata/domain/time';

export interface CreateOwnerOptions {
  email: string;
  org: string;
  name?: string;
  passwordStdin?: boolean;
  json?: boolean;
}

/** `strata admin create-owner` */
export async function createOwner(opts: CreateOwnerOptions, globals: GlobalOptions, clock: Clock): Promise<void> {
  const cfg = cliConfig(globals);
  // an id names an existing organization: a data dir without a log has none, and must stay untouched
  if (cfg.store === 'embedded' && looksLikeOrgId(opts.org) && !fs.existsSync(path.join(cfg.dataDir, EVENTS_FILE)))
    throw new CliError(`organization ${opts.org.trim()} not found: there is no event log at ${path.join(cfg.dataDir, EVENTS_FILE)}, so no organization yet (pass --data-dir to the installation, or give a name to create a new organization)`);
  const password = opts.passwordStdin
    ? (await readInput(undefined, 'password', "printf '%s' \"$PASSWORD\" | strata admin create-owner … --password-stdin")).toString('utf8').replace(/\r?\n$/, '')
    : null;
  const r = await withAppContext(cfg, { writes: true, create: true, clock }, (app) =>
    app.get(CreateOwnerService, { strict: false }).createOwner({
      email: opts.email,
      org: opts.org,
      password,
      name: opts.name?.trim() || null,
      operator: operatorId(),
      request_id: cliRequestId(),
    }),
  );
  if (opts.json) return writeOut(JSON.stringify(r) + '\n');
  const lines = [
    `${r.created_user ? 'created user' : 'existing user'} ${r.email} (${r.user_id})`,
    `owner of ${r.created_org ? 'new' : 'existing'} organization "${r.org_name}" (${r.org_id})`,
  ];
  if (r.one_time_password) lines.push(`one-time password: ${r.one_time_password}`, '(shown only this once: nothing stores it in clear)');
  await writeOut(lines.join('\n') + '\n');
}
