import { api, createApiKey } from '../support/http';
import { TestApp } from '../support/test-app';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { Tenant, startService, tenant } from './cli-fixture';
import { FixedClock } from '@strata/domain/time';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

interface Record {
  position: number;
  at: string;
  org: string;
  principal: string;
  credential_id: string | null;
  agent_id: string | null;
  action: string;
  kind: string;
  target: string | null;
  request_id: string;
}

describe('strata audit replay', () => {
  let t: TestApp;
  const clock = new FixedClock();
  let a: Tenant;
  let b: Tenant;
  let agentKey: { id: string; key: string };
  let goal: string;
  let claim: string;
  let edge: string;
  let claimedByKey: string;
  let claimedByUser: string;
  let firstPosition: number;

  const replay = async (...args: string[]): Promise<Record[]> => {
    const r = expectExit(await runCli(['audit', 'replay', '--format', 'jsonl', '--data-dir', t.dataDir, ...args]), 0);
    return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  };

  beforeAll(async () => {
    t = await startService({ clock });
    a = await tenant(t.url);
    b = await tenant(t.url);
    agentKey = await createApiKey(t.url, a.access_token, { agent_id: 'planner-7', name: 'agent key' });
    goal = (await a.c.post('/node', { label: 'Ship the CLI', node_type: 'Goal' })).body.uid;
    const byAgent = api(t.url, agentKey.key);
    claim = (await byAgent.post('/node', { label: 'Rebuilds are safe', node_type: 'Claim', props: { content: 'beside and swap' } })).body.uid;
    edge = (await byAgent.post('/edge', { from_uid: claim, to_uid: goal, edge_type: 'Supports' })).body.uid;
    await a.c.patch(`/node/${goal}`, { label: 'Ship the strata CLI' });
    await a.c.delete(`/node/${claim}`);
    await b.c.post('/node', { label: 'Other tenant', node_type: 'Goal' });
    // a plain key and a user's JWT state an agent_id in the body: attribution, not identity
    claimedByKey = (await a.c.post('/node', { label: 'Claimed by key', node_type: 'Goal', agent_id: 'agent-007' })).body.uid;
    claimedByUser = (await api(t.url, a.access_token).post('/node', { label: 'Claimed by user', node_type: 'Goal', agent_id: 'agent-007' })).body.uid;
    firstPosition = (await replay('--org', a.org_id, '--kind', 'node')).find((r) => r.target === goal)!.position;
  });
  afterAll(() => t.close());

  it("lists only the organization's events, each saying who did what to which uid, when, under which request", async () => {
    const records = await replay('--org', a.org_id);
    expect(records.length).toBeGreaterThan(5);
    expect(records.every((r) => r.org === a.org_id)).toBe(true);
    expect(records.map((r) => r.position)).toEqual([...records.map((r) => r.position)].sort((x, y) => x - y));
    const created = records.find((r) => r.action === 'NodeCreated' && r.target === goal)!;
    expect(created).toMatchObject({ principal: `api_key:${a.key_id}`, credential_id: a.key_id, agent_id: null, kind: 'node' });
    expect(created.request_id).toBeTruthy();
    expect(Date.parse(created.at)).toBe(clock.now() * 1000); // the service's clock, which stands still here
    const byAgent = records.find((r) => r.action === 'EdgeCreated')!;
    // an agent-bound key is its own principal; the agent it acts for is the attribution
    expect(byAgent).toMatchObject({ target: edge, principal: `api_key:${agentKey.id}`, agent_id: 'planner-7', credential_id: agentKey.id });
    expect(records.some((r) => r.action === 'MemberAdded' && r.principal === `user:${a.user_id}`)).toBe(true);
    expect((await replay('--org', b.org_id)).every((r) => r.org === b.org_id)).toBe(true);
  });

  it('filters by kind (event type or stream category) and by principal', async () => {
    const tombstones = await replay('--org', a.org_id, '--kind', 'NodeTombstoned');
    expect(tombstones.map((r) => [r.action, r.target])).toEqual([['NodeTombstoned', claim]]);
    const graph = await replay('--org', a.org_id, '--kind', 'node,edge');
    expect(new Set(graph.map((r) => r.kind))).toEqual(new Set(['node', 'edge']));
    // the agent a key is bound to is attribution: the key is the principal
    expect(await replay('--org', a.org_id, '--principal', 'agent:planner-7')).toEqual([]);
    const agent = await replay('--org', a.org_id, '--agent', 'planner-7');
    expect(agent.map((r) => [r.action, r.principal])).toEqual([
      ['NodeCreated', `api_key:${agentKey.id}`],
      ['EdgeCreated', `api_key:${agentKey.id}`],
    ]);
    expect((await replay('--org', a.org_id, '--principal', `api_key:${agentKey.id}`)).map((r) => r.action)).toEqual(['NodeCreated', 'EdgeCreated']);
    const owner = await replay('--org', a.org_id, '--principal', `api_key:${a.key_id}`, '--kind', 'node');
    expect(owner.map((r) => r.action)).toEqual(['NodeCreated', 'NodeUpdated', 'NodeTombstoned', 'NodeCreated']);
  }, 60_000);

  it('never takes an agent_id from the request for who acted: --principal and the identity fields ignore it', async () => {
    for (const w of ['agent:agent-007', 'agent-007', 'agent']) expect(await replay('--org', a.org_id, '--principal', w)).toEqual([]);
    const claimed = await replay('--org', a.org_id, '--agent', 'agent-007');
    expect(claimed.map((r) => [r.target, r.principal, r.credential_id, r.agent_id])).toEqual([
      [claimedByKey, `api_key:${a.key_id}`, a.key_id, 'agent-007'],
      [claimedByUser, `user:${a.user_id}`, null, 'agent-007'],
    ]);
    const table = expectExit(await runCli(['audit', 'replay', '--org', a.org_id, '--agent', 'agent-007', '--data-dir', t.dataDir]), 0).stdout.trimEnd().split('\n');
    const cell = (row: string, from: string, to: string) => row.slice(table[0].indexOf(from), table[0].indexOf(to)).trim();
    expect(table.slice(1).map((row) => [cell(row, 'PRINCIPAL', 'VIA'), cell(row, 'VIA', 'AGENT'), cell(row, 'AGENT', 'ACTION')])).toEqual([
      [`api_key:${a.key_id}`.slice(0, 27) + '…', `key:${a.key_id}`.slice(0, 23) + '…', 'agent-007'],
      [`user:${a.user_id}`.slice(0, 27) + '…', '-', 'agent-007'],
    ]);
  }, 60_000);

  it('filters by position and by time window', async () => {
    const from = await replay('--org', a.org_id, '--from', String(firstPosition), '--to', String(firstPosition + 1));
    expect(from.map((r) => r.position).every((p) => p >= firstPosition && p <= firstPosition + 1)).toBe(true);
    expect(from[0].position).toBe(firstPosition);
    const all = await replay('--org', a.org_id);
    const lastAt = all[all.length - 1].at;
    expect(await replay('--org', a.org_id, '--from', '2999-01-01')).toEqual([]);
    expect((await replay('--org', a.org_id, '--from', lastAt)).map((r) => r.at).every((at) => at >= lastAt)).toBe(true);
    expect(await replay('--org', a.org_id, '--to', '2001-01-01T00:00:00Z')).toEqual([]);
    // a date alone names the whole day (UTC), as --to too
    const day = all[0].at.slice(0, 10);
    const onThatDay = all.filter((r) => r.at.startsWith(day));
    expect(onThatDay.length).toBeGreaterThan(0);
    expect(await replay('--org', a.org_id, '--from', day, '--to', day)).toEqual(onThatDay);
    // a clock time is an instant: the last record's own time takes it in, as --to and as --from
    expect(await replay('--org', a.org_id, '--to', lastAt)).toEqual(all);
  }, 60_000);

  it('prints an aligned table by default, with a count on stderr', async () => {
    const r = expectExit(await runCli(['audit', 'replay', '--org', a.org_id, '--kind', 'EdgeCreated', '--data-dir', t.dataDir]), 0);
    const [header, row, ...rest] = r.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(header).toMatch(/^POSITION\s+TIME\s+PRINCIPAL\s+VIA\s+AGENT\s+ACTION\s+TARGET\s+REQUEST$/);
    expect(row.indexOf('EdgeCreated')).toBe(header.indexOf('ACTION'));
    expect(row.slice(header.indexOf('AGENT'), header.indexOf('ACTION')).trim()).toBe('planner-7');
    expect(row).not.toContain('agent:planner-7');
    expect(r.stderr).toMatch(/^1 audit records \([\d,]+ events read\)\n$/);
  });

  it('answers bad options with one line and a non-zero exit', async () => {
    const bad = await runCli(['audit', 'replay', '--org', a.org_id, '--from', 'last tuesday', '--data-dir', t.dataDir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("strata: --from must be a log position (e.g. 1200) or an ISO 8601 time (e.g. 2025-01-31T12:00:00Z), got 'last tuesday'\n");
    // impossible dates are refused, not rolled over into the next month
    for (const [flag, date] of [['--from', '2026-02-30'], ['--to', '2026-11-31']]) {
      const impossible = await runCli(['audit', 'replay', '--org', a.org_id, flag, date, '--data-dir', t.dataDir]);
      expect([impossible.code, impossible.stdout]).toEqual([1, '']);
      expect(impossible.stderr).toBe(`strata: ${flag} must be a log position (e.g. 1200) or an ISO 8601 time (e.g. 2025-01-31T12:00:00Z), got '${date}': there is no such date or time\n`);
    }
    const noOrg = await runCli(['audit', 'replay', '--data-dir', t.dataDir]);
    expect(noOrg.code).toBe(1);
    expect(noOrg.stderr).toBe("strata: required option '--org <id>' not specified\n");
    const format = await runCli(['audit', 'replay', '--org', a.org_id, '--format', 'xml', '--data-dir', t.dataDir]);
    expect(format.code).toBe(1);
    expect(format.stderr.trim().split('\n')).toHaveLength(1);
    const reversed = await runCli(['audit', 'replay', '--org', a.org_id, '--from', '10', '--to', '5', '--data-dir', t.dataDir]);
    expect(reversed.stderr).toBe('strata: --from (10) is after --to (5)\n');
    // an organization the log never heard of is an error, not an empty trail
    for (const org of ['no-such-org', '6d0c2a5e-0000-4000-8000-00000000abcd']) {
      const unknown = await runCli(['audit', 'replay', '--org', org, '--data-dir', t.dataDir]);
      expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', `strata: organization ${org} not found\n`]);
    }
  }, 60_000);
});
