import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { api, login } from '../support/http';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { startService, tenant } from './cli-fixture';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

/** Has the form of an organization id, names none. */
const UNKNOWN_ORG = '6d0c2a5e-0000-4000-8000-00000000abcd';

describe('strata admin create-owner', () => {
  it('bootstraps an owner on a fresh install with a one-time password that signs in', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-cli-admin-'));
    try {
      const r = expectExit(await runCli(['admin', 'create-owner', '--email', 'Ops@Example.test', '--org', 'Acme', '--data-dir', dataDir]), 0);
      const password = /one-time password: (\S+)/.exec(r.stdout)![1];
      expect(password.length).toBeGreaterThanOrEqual(10);
      expect(r.stdout).toMatch(/^created user Ops@Example.test \([0-9a-f-]+\)\nowner of new organization "Acme" \([0-9a-f-]+\)\n/);

      const dup = await runCli(['admin', 'create-owner', '--email', 'ops@example.test', '--org', 'Acme', '--password-stdin', '--data-dir', dataDir], { input: 'another-password\n' });
      expect(dup.code).toBe(1);
      expect(dup.stderr).toMatch(/^strata: a user with e-mail ops@example.test already exists; .*\[duplicate\]\n$/);

      const t = await startService({ dataDir });
      try {
        const tokens = await login(t.url, 'ops@example.test', password);
        const orgs = (await api(t.url, tokens.access_token).get('/v1/orgs')).body;
        expect(orgs.items.map((o: { name: string; role: string }) => [o.name, o.role])).toEqual([['Acme', 'owner']]);
      } finally {
        await t.close({ keepData: true });
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('makes a new user with a password from stdin the owner of an existing organization', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const founder = await tenant(t.url);
      const busy = await runCli(['admin', 'create-owner', '--email', 'second@example.test', '--org', founder.org_id, '--data-dir', dataDir]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/a Strata service \(pid \d+\) is running/);
      await t.close({ keepData: true });

      // an --org of the form of an id names an existing organization: an unknown one is an error, never a new org's name
      const head = async () => JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout)[0].head;
      const before = await head();
      for (let i = 0; i < 2; i++) {
        const unknown = await runCli(['admin', 'create-owner', '--email', 'f3@example.test', '--org', UNKNOWN_ORG, '--data-dir', dataDir]);
        expect([unknown.code, unknown.stdout]).toEqual([1, '']);
        expect(unknown.stderr).toMatch(new RegExp(`^strata: organization ${UNKNOWN_ORG} not found \\(--org takes an existing organization's id, or the name of a new organization, which cannot have the form of an id\\) \\[not_found\\]\n$`));
      }
      expect(await head()).toBe(before);

      const short = await runCli(['admin', 'create-owner', '--email', 'second@example.test', '--org', founder.org_id, '--password-stdin', '--data-dir', dataDir], { input: 'short\n' });
      expect(short.stderr).toBe('strata: password must be at least 10 characters [invalid_field]\n');
      const r = expectExit(
        await runCli(['admin', 'create-owner', '--email', 'second@example.test', '--org', founder.org_id, '--password-stdin', '--json', '--data-dir', dataDir], { input: 'correct horse battery\n' }),
        0,
      );
      expect(JSON.parse(r.stdout)).toMatchObject({ org_id: founder.org_id, created_user: true, created_org: false, one_time_password: null });
      const again = await runCli(['admin', 'create-owner', '--email', 'second@example.test', '--org', founder.org_id, '--data-dir', dataDir]);
      expect(again.stderr).toMatch(/is already an owner of organization/);

      const t2 = await startService({ dataDir });
      try {
        const tokens = await login(t2.url, 'second@example.test', 'correct horse battery');
        const members = (await api(t2.url, tokens.access_token).get(`/v1/orgs/${founder.org_id}/members`)).body;
        expect(members.items.find((m: { email: string }) => m.email === 'second@example.test').role).toBe('owner');
      } finally {
        await t2.close({ keepData: true });
      }
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses an organization id on a data dir without a log, writing nothing there', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-cli-admin-'));
    try {
      const r = await runCli(['admin', 'create-owner', '--email', 'f3@example.test', '--org', UNKNOWN_ORG.toUpperCase(), '--data-dir', dataDir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `strata: organization ${UNKNOWN_ORG.toUpperCase()} not found: there is no event log at ${path.join(dataDir, 'events.db')}, so no organization yet (pass --data-dir to the installation, or give a name to create a new organization)\n`,
      );
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a malformed e-mail with one line', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-cli-admin-'));
    try {
      const r = await runCli(['admin', 'create-owner', '--email', 'not-an-email', '--org', 'Acme', '--data-dir', dataDir]);
      expect([r.code, r.stderr]).toEqual([1, 'strata: email must be an e-mail address [invalid_field]\n']);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
