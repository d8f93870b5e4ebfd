import { Command } from 'commander';
import type { Clock } from '@strata/domain/time';
import type { CreateOwnerOptions } from '../actions/create-owner';
import type { GlobalOptions } from '../support/cli-config';

export function registerAdmin(program: Command, clock: Clock): void {
  const admin = program.command('admin').description('administration of accounts without the HTTP API');
  admin
    .command('create-owner')
    .description('bootstrap an owner: a user (with a one-time password) who owns a new or existing organization')
    .requiredOption('--email <email>', "the owner's e-mail address")
    .requiredOption('--org <id|name>', "an existing organization's id, or the name of a new organization (a value of the form of an id must name an existing one)")
    .option('--name <name>', "the owner's display name")
    .option('--password-stdin', 'read the password from stdin instead of generating a one-time password')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
--org is looked up as an organization id first; any other value is the name of a new
organization. A value of the form of an id (a UUID) that matches no organization is an error
(a mistyped id never becomes a new organization's name), and nothing is written.
The generated password is printed once; nothing stores it. On the embedded default the
service must be stopped. Against the servers (STRATA_STORE=servers, the service's own
environment) it appends to KurrentDB while the API runs: the command answers once it has read
its own write back, and every API replica sees the owner within its subscription delay.

Examples:
  strata admin create-owner --email ops@example.com --org "Acme"
  printf '%s' "$PASSWORD" | strata admin create-owner --email ops@example.com --org 7f3c… --password-stdin`,
    )
    .action(async (opts: CreateOwnerOptions, cmd: Command) => {
      const { createOwner } = await import('../actions/create-owner');
      await createOwner(opts, cmd.optsWithGlobals<GlobalOptions>(), clock);
    });
}
