import { CreateOwnerService } from '../../../api/src/operations/admin/create-owner.service';
import { GlobalOptions, cliConfig } from '../support/cli-config';
import { withAppContext } from '../support/app-context';
import { cliRequestId, operatorId } from '../support/operator';
import { writeOut } from '../support/output';
import { readInput } from '../support/read-input';

export interface CreateOwnerOptions {
  email: string;
  org: string;
  name?: string;
  passwordStdin?: boolean;
  json?: boolean;
}

/** `strata admin create-owner` */
export async function createOwner(opts: CreateOwnerOptions, globals: GlobalOptions): Promise<void> {
  const cfg = cliConfig(globals);
  const password = opts.passwordStdin
    ? (await readInput(undefined, 'password', "printf '%s' \"$PASSWORD\" | strata admin create-owner … --password-stdin")).toString('utf8').replace(/\r?\n$/, '')
    : null;
  const r = await withAppContext(cfg, { writes: true, create: true }, (app) =>
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
