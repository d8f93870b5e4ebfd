import * as os from 'node:os';
import { McpStreams, ToolApprovalStreams } from '@strata/domain/mcp';
import { eventually as waitFor } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { ApprovalExpiry } from '@strata/mcp/approvals';
import { ConnectionTools } from '@strata/mcp/connections';
import { serversConfig } from '../accounts/support/servers-replica';
import { AgentRuns } from '../../apps/api/src/agents/runtime/agent-runs';
import { AGENT_RUN_JOB } from '../../apps/api/src/agents/runtime/agent-run.job';
import { RunControl } from '../../apps/api/src/agents/runtime/run-control';
import { ToolServer, startToolServer } from '../mcp/support/tool-server';
import { Api, api, signUp } from '../support/http';
import { ModelReplicaPair, Replica, startModelReplicaPair } from './support/servers-mode-app';

/**
 * MCP in servers mode: two API replicas on one log, each deciding against its own mirror of the
 * MCP read model. A connection made on one is synced and called from the other; a tool-call
 * approval asked for by the replica running the agent is allowed on the other; an expiry and
 * the five-minute automatic re-sync are each written once though both replicas sweep and tick.
 * The tool server is a real SDK server on loopback.
 */

/** waits for background work of the replicas (returns the first truthy value) */
const eventually = <T>(check: () => T | Promise<T>, what: string) => waitFor(check, { what, timeoutMs: 10_000, everyMs: 20 });

interface Org {
  org_id: string;
  ja: Api;
  jb: Api;
}

/** a replica's runner of agent runs (a runner of their own, inside AgentRuns) */
function agentRunner(r: Replica): JobRunner {
  return (r.app.get(AgentRuns) as unknown as { runner: JobRunner }).runner;
}

describe('servers mode: MCP connections, tool calls and approvals across replicas', () => {
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  let pair: ModelReplicaPair;
  let a: Replica;
  let b: Replica;
  let tools: ToolServer;

  beforeAll(async () => {
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.', readOnly: true }] });
    // the harness has no MongoDB: each replica keeps connection secrets embedded, so these connections carry none
    const mcp = { ...serversConfig(os.tmpdir()).mcp, allowPrivate: true };
    pair = await startModelReplicaPair({ clock, leaseTtlMs: 30 * 24 * 3600_000, extra: { mcp, mongoUrl: null } });
    ({ a, b } = pair);
  });
  afterAll(async () => {
    await pair?.close();
    await tools?.close();
  });
  afterEach(() => expect(pair.worker.problems).toEqual([]));

  /** a Team organization's owner, with its access token on each replica */
  async function teamOrg(): Promise<Org> {
    const s = await signUp(a.url);
    expect((await api(a.url, s.access_token).post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
    const jb = api(b.url, s.access_token);
    await eventually(async () => (await jb.get('/v1/agents')).status === 200, 'agents usable on B');
    return { org_id: s.org_id, ja: api(a.url, s.access_token), jb };
  }

  /** a connection created on A to the tool server, seen with its tool on B */
  async function connection(o: Org, name: string, body: Record<string, unknown> = {}, server: ToolServer = tools) {
    const c = await o.ja.post('/v1/mcp/connections', { name, url: server.url, auth: { type: 'none' }, ...body });
    expect(c.status).toBe(201);
    const add = await eventually(async () => ((await o.jb.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body.tools ?? []).find((x: { name: string }) => x.name === 'add'), 'the tool in B’s registry');
    return { id: c.body.id as string, add: add as { model_name: string; affordance_uid: string } };
  }

  async function agentWith(o: Org, name: string, affordanceUid: string) {
    const agent = (await o.ja.post('/v1/agents', { name, tools: ['strata_get_node'] })).body;
    // the grant route finds a managed agent through this replica's agents mirror, which may trail the write by a moment
    await eventually(async () => (await o.ja.put(`/v1/agents/${agent.id}/tool-grants/${affordanceUid}`, {})).status === 201, 'the tool granted');
    return agent as { id: string };
  }

  async function runEnded(x: Api, sid: string, runId: string) {
    return eventually(async () => {
      const s = (await x.get(`/v1/agents/sessions/${sid}`)).body;
      const run = s.current_run?.id === runId ? s.current_run : s.last_run?.id === runId ? s.last_run : null;
      return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : null;
    }, `run ${runId} ended`);
  }

  async function results(x: Api, sid: string) {
    return ((await x.get(`/v1/agents/sessions/${sid}/events?limit=1000&types=tool.result`)).body.items as { data: any }[]).map((e) => e.data);
  }

  async function streamTypes(stream: string): Promise<string[]> {
    return (await pair.servers.log.readStream(stream)).map((e) => e.type);
  }

  it('a connection created on A is synced and called from B, and an agent run calls its tool', async () => {
    const o = await teamOrg();
    const { id, add } = await connection(o, 'Calc', { approval_mode: 'never' });
    // B's own tool path: its mirror's connection and registry, its own session with the server
    const out = await b.app.get(ConnectionTools).callTool(o.org_id, id, 'add', { a: 2, b: 3 });
    expect(out).toMatchObject({ ok: true, is_error: false, text: '5' });
    // a sync made on B is read back on A
    const synced = await o.jb.post(`/v1/mcp/connections/${id}/sync`, {});
    expect(synced.status).toBe(200);
    await eventually(async () => (await o.ja.get(`/v1/mcp/connections/${id}`)).body.last_sync_id === synced.body.sync.id, 'B’s sync seen on A');

    const agent = await agentWith(o, 'Adder', add.affordance_uid);
    pair.llm.enqueue({ type: 'tool_calls', calls: [{ id: 'c1', name: add.model_name, arguments: { a: 2, b: 3 } }] }, { type: 'text', text: 'Five.' });
    const created = (await o.jb.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add 2 and 3' })).body;
    expect((await runEnded(o.ja, created.id, created.run_id)).status).toBe('completed');
    expect(await results(o.ja, created.id)).toMatchObject([{ tool_call_id: 'c1', status: 'ok', result: '5' }]);
  });

  it('an approval asked for by the replica running the agent is allowed on the other; the call then runs', async () => {
    const o = await teamOrg();
    const { add } = await connection(o, 'Gate');
    const agent = await agentWith(o, 'Asker', add.affordance_uid);
    pair.llm.enqueue({ type: 'tool_calls', calls: [{ id: 'g1', name: add.model_name, arguments: { a: 2, b: 3 } }] }, { type: 'text', text: 'Five.' });
    const created = (await o.ja.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add 2 and 3' })).body;
    const pendingOn = (x: Api) => eventually(async () => (await x.get(`/v1/mcp/approvals?session_id=${created.id}&status=pending`)).body.items?.[0], 'a pending approval');
    const approval = await pendingOn(o.ja);
    expect((await pendingOn(o.jb)).id).toBe(approval.id);
    // the run waits in the job of exactly one replica's agent runner: the other one decides
    const running = [a, b].filter((r) => (agentRunner(r).runningByKind().get(AGENT_RUN_JOB) ?? 0) > 0);
    expect(running).toHaveLength(1);
    const other = running[0] === a ? o.jb : o.ja;
    const resolved = await other.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'allow' });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'approved' });
    expect((await runEnded(o.ja, created.id, created.run_id)).status).toBe('completed');
    expect(await results(o.jb, created.id)).toMatchObject([{ tool_call_id: 'g1', status: 'ok', result: '5' }]);
    expect(await streamTypes(ToolApprovalStreams.approval(o.org_id, approval.id))).toEqual(['ToolApprovalRequested', 'ToolApprovalResolved']);
  });

  it('an expiry reads at once on both replicas and is written once though both sweep', async () => {
    const o = await teamOrg();
    const { add } = await connection(o, 'Slow', { approval_timeout_s: 60 });
    const agent = await agentWith(o, 'Waiter', add.affordance_uid);
    pair.llm.enqueue({ type: 'tool_calls', calls: [{ id: 'e1', name: add.model_name, arguments: { a: 2, b: 3 } }] }, { type: 'text', text: 'Nobody answered.' });
    const created = (await o.ja.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add 2 and 3' })).body;
    const approval = await eventually(async () => (await o.jb.get(`/v1/mcp/approvals?session_id=${created.id}&status=pending`)).body.items?.[0], 'a pending approval on B');
    await eventually(async () => (await o.ja.get(`/v1/mcp/approvals/${approval.id}`)).body.status === 'pending', 'the approval on A');
    clock.advance(60);
    // at expires_at both replicas say expired, before anything is written
    for (const x of [o.ja, o.jb]) expect((await x.get(`/v1/mcp/approvals/${approval.id}`)).body).toMatchObject({ status: 'expired', resolved_at: '2030-01-01T12:01:00.000Z' });
    await Promise.all([a.app.get(ApprovalExpiry).sweep(), b.app.get(ApprovalExpiry).sweep()]);
    expect((await runEnded(o.jb, created.id, created.run_id)).status).toBe('completed');
    expect(await results(o.ja, created.id)).toMatchObject([{ tool_call_id: 'e1', status: 'error', error: { code: 'approval_expired' } }]);
    // however many sweeps ran (both replicas' loops too), one expiry in the approval's stream
    await Promise.all([a.app.get(ApprovalExpiry).sweep(), b.app.get(ApprovalExpiry).sweep()]);
    expect(await streamTypes(ToolApprovalStreams.approval(o.org_id, approval.id))).toEqual(['ToolApprovalRequested', 'ToolApprovalExpired']);
    expect((await o.jb.get(`/node/${approval.id}`)).body.props).toMatchObject({ status: 'denied', reason: 'expired' });
  });

  it('an interrupt served by the other replica cancels the MCP call in flight on the replica running the run', async () => {
    const slow = await startToolServer({ tools: [{ name: 'slow', description: 'Takes its time.', hang: true }] });
    try {
      const o = await teamOrg();
      const c = await o.ja.post('/v1/mcp/connections', { name: 'Slow tools', url: slow.url, auth: { type: 'none' }, approval_mode: 'never' });
      expect(c.status).toBe(201);
      const tool = await eventually(async () => ((await o.jb.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body.tools ?? []).find((x: { name: string }) => x.name === 'slow'), 'the tool in B’s registry');
      const agent = await agentWith(o, 'Slow caller', tool.affordance_uid);
      pair.llm.enqueue({ type: 'tool_calls', calls: [{ id: 's1', name: tool.model_name, arguments: { a: 1 } }] });
      const seen = slow.seenMethods.length;
      const created = (await o.ja.post('/v1/agents/sessions', { agent_id: agent.id, message: 'take your time' })).body;
      await eventually(() => slow.seenMethods.slice(seen).includes('tools/call') || null, 'the tool call reached the server');
      const [runner, other] = await eventually(() => {
        if (a.app.get(RunControl).isRunning(created.run_id)) return [a, o.jb] as const;
        if (b.app.get(RunControl).isRunning(created.run_id)) return [b, o.ja] as const;
        return null;
      }, 'the replica running the run');
      await eventually(async () => (await other.get(`/v1/agents/sessions/${created.id}`)).body.current_run?.status === 'running', 'the run running, seen on the other');
      const stop = await other.post(`/v1/agents/sessions/${created.id}/interrupt`, {});
      expect(stop.body).toMatchObject({ interrupted: true, run_id: created.run_id });
      // the call never answers: only the abort that follows the log reaches the server
      await eventually(() => slow.seenMethods.slice(seen).includes('notifications/cancelled') || null, 'notifications/cancelled reached the server');
      await eventually(() => !runner.app.get(RunControl).isRunning(created.run_id), 'the run stopped where it ran');
      expect((await runEnded(o.ja, created.id, created.run_id)).status).toBe('cancelled');
      // an interrupt is not a failure of the server, on either replica
      for (const x of [o.ja, o.jb]) expect((await x.get(`/v1/mcp/connections/${c.body.id}`)).body).toMatchObject({ status: 'active', last_error: null });
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it('a connection in error is synced again once, five minutes on, though both replicas tick the schedule', async () => {
    const flaky = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.', readOnly: true }] });
    try {
      const o = await teamOrg();
      const { id } = await connection(o, 'Flaky', { approval_mode: 'never' }, flaky);
      flaky.failWith = 503;
      const failed = await o.jb.post(`/v1/mcp/connections/${id}/sync`, {});
      expect([failed.status, failed.body.code]).toEqual([502, 'mcp_sync_failed']);
      flaky.failWith = null;
      await eventually(async () => (await o.ja.get(`/v1/mcp/connections/${id}`)).body.status === 'error', 'the failure seen on A');
      const schedule = () => Promise.all([a, b].map((r) => r.app.get(Scheduler).get('_platform', 'mcp-connection-resync')));
      await eventually(async () => (await schedule()).every((s) => s !== null), 'the re-sync scheduled');
      const stream = McpStreams.connection(o.org_id, id);
      const syncsBefore = (await streamTypes(stream)).filter((t) => t === 'McpConnectionSynced').length;
      const listsBefore = flaky.seenMethods.filter((m) => m === 'tools/list').length;

      clock.advance(300);
      await Promise.all([a.app.get(Scheduler).tick(), b.app.get(Scheduler).tick()]);
      for (const x of [o.ja, o.jb]) await eventually(async () => (await x.get(`/v1/mcp/connections/${id}`)).body.status === 'active', 'the connection back to active');
      // more ticks of the same slot change nothing
      await Promise.all([a.app.get(Scheduler).tick(), b.app.get(Scheduler).tick()]);
      await Promise.all([a, b].map((r) => r.app.get(JobRunner).settled()));
      expect((await streamTypes(stream)).filter((t) => t === 'McpConnectionSynced').length - syncsBefore).toBe(1);
      expect(flaky.seenMethods.filter((m) => m === 'tools/list').length - listsBefore).toBe(1);
      expect((await o.ja.get(`/v1/mcp/connections/${id}`)).body).toMatchObject({ status: 'active', last_error: null, last_sync_at: new Date(clock.now() * 1000).toISOString() });
    } finally {
      await flaky.close();
    }
  });
});
