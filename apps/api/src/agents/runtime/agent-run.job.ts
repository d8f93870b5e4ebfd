import { decideMirrorVersion, GraphChanges } from '@strata/domain/graph';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { UpstreamError } from '@strata/ai/errors';
import type { ChatMessage, ChatResponse, ToolCall } from '@strata/ai/llm/chat-model.port';
import { MeteredLanguageModels, usageEntryOf } from '@strata/ai/llm/metered-language-models';
import { stageLlmUsage } from '@strata/accounts/usage/llm-usage-recorder';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import {
  ASK_USER_TOOL,
  AgentRecord,
  INPUT_TTL_S,
  AgentStreams,
  RunRecord,
  SessionRecord,
  TOOL_RESULT_BYTES,
  budgetExhaustion,
  capToolResult,
  creditsOf,
  runEnded,
  utcDay,
  utcMonth,
} from '@strata/domain/agents';
import { Streams } from '@strata/domain/events';
import { DomainError } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { JobContext, JobHandler, JobStopped } from '@strata/jobs/runner/job-runner';
import type { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { createEdge, createNode } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { RunOptions, UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { SessionEventRow } from '@strata/projections/agents/agents-read-model';
import { AGENT_TOOL_SOURCE, AgentMcpTool, AgentToolSource } from '@strata/mcp/tools';
import { GovernedCall, ToolApprovals } from '@strata/mcp/approvals';
import { approvalOutcomeError } from '@strata/domain/mcp';
import { AgentsStore } from '../agents-store';
import { GraphTools, ToolOutcome } from './graph-tools';
import { RunControl } from './run-control';
import { RunWaits } from './run-waits';
import { SessionDeltas } from './session-deltas';
import { SessionHistory } from './session-history';
import { sessionNodeOf, stageRunStart } from './run-start';

export const AGENT_RUN_JOB = 'agent_run';
export interface AgentRunInput {
  session_id: string;
  run_id: string;
}

/** history older than this many estimated tokens is left out (REFERENCE §16.7) */
const HISTORY_TOKENS = 100_000;

/** Thrown to leave the run's loop once the run ended: expected at the end of every run, so it takes no stack trace. */
class RunEnd extends Error {
  constructor() {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super('the run ended');
    Error.stackTraceLimit = limit;
  }
}

/**
 * What one run job holds: its session stream's revision, and its job (to confirm the lease).
 * Passed along the job's calls, not kept in an AsyncLocalStorage: on Node 20 one that has run
 * turns on promise hooks for every promise of the process. Two jobs of one run may overlap in a
 * process (a lapsed lease), each with its own.
 */
interface Hold {
  revision: number;
  job: JobContext;
}

/** a run's own append refused this often (others writing to its session each time) gives up */
const CONFLICT_ATTEMPTS = 5;
/**
 * A run's start and its turns of tool calls answer nobody: they become durable with the run's
 * next durable commit (its end, a tool's result) or within the unit of work's short bound, and
 * before any MCP call leaves the process (callMcp). The model call may run meanwhile: a crash
 * loses at most a start or a turn nobody was told of, and the resumed run calls the model again.
 */
const INTERMEDIATE: RunOptions = { durability: 'deferred' };

/** A listed session event of one wire type, its data typed by it. */
type RowOf<T extends SessionEventRow['type']> = Extract<SessionEventRow, { type: T }>;
const isRow =
  <T extends SessionEventRow['type']>(type: T) =>
  (e: SessionEventRow): e is RowOf<T> =>
    e.type === type;

/** A recorded `tool.call` as the runtime reads it back. */
type CallData = RowOf<'tool.call'>['data'];

/** an output snapshot that is not an object is kept as `{value}`: what that wrapping adds */
const SNAPSHOT_WRAP_BYTES = Buffer.byteLength('{"value":}');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * One run of a managed agent (REFERENCE §16.7), as a durable job: budget, Trace node,
 * `run.started`; then model calls with the agent's tools until an answer without tool calls,
 * each step recorded as it happens. Everything it decides comes from the session's recorded
 * events, so a job claimed again after a restart resumes where the log says the run stopped:
 * a lost model answer is asked for again, a tool call without a recorded result is not
 * repeated (the model is told `interrupted`).
 */
@Injectable()
export class AgentRunJob implements JobHandler {
  private readonly log = new Logger('AgentRuntime');

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly store: AgentsStore,
    private readonly models: MeteredLanguageModels,
    private readonly plans: PlanLimits,
    private readonly tools: GraphTools,
    private readonly control: RunControl,
    private readonly waits: RunWaits,
    @Inject(AGENT_TOOL_SOURCE) private readonly mcp: AgentToolSource,
    private readonly approvals: ToolApprovals,
    private readonly deltas: SessionDeltas,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly sessionRows: SessionHistory,
  ) {}

  /**
   * One of the run's own appends. Its events on the session stream expect the revision the run
   * holds (read when the job was claimed, moved by each of its own appends), so a runner whose
   * lease lapsed while another claimed the run cannot interleave its steps with the new
   * runner's: its append fails. Someone else appending to the session (a queued message, an
   * answer) fails it too; the run then confirms it still holds its job (its lease renewed in
   * the queue), takes the stream's new revision and decides again on the read model showing it.
   * A lost lease stops the run here (`lease_lost`): the other runner goes on.
   */
  private async own<T>(hold: Hold, agent: AgentRecord, s: Pick<SessionRecord, 'org_id' | 'id'>, runId: string, fn: (tx: GraphTx) => Promise<T>, opts?: RunOptions): Promise<T> {
    const stream = AgentStreams.session(s.org_id, s.id);
    for (let attempt = 1; ; attempt++) {
      let appended = 0;
      try {
        const result = await this.uow.run(this.ctxOf(agent, runId), async (tx) => {
          tx.expect(stream, hold.revision < 0 ? 'no_stream' : hold.revision);
          const r = await fn(tx);
          appended = tx.stagedOn(stream);
          return r;
        }, opts);
        hold.revision += appended;
        return result;
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'version_conflict') || attempt >= CONFLICT_ATTEMPTS) throw err;
        await hold.job.progress({ run_id: runId });
        if (hold.job.signal.aborted) throw hold.job.signal.reason;
        hold.revision = await this.store.revisionToHold(stream);
      }
    }
  }

  private ctxOf(agent: AgentRecord, runId: string): CommandContext {
    return { org: agent.org_id, principal: { kind: 'agent', id: agent.id }, credential_id: null, agent_id: agent.id, request_id: runId };
  }

  private base(s: SessionRecord, runId: string, now: number) {
    return { org_id: s.org_id, agent_id: s.agent_id, session_id: s.id, run_id: runId, at: now };
  }

  /** the run as recorded; RunEnd once it ended (cancelled meanwhile, or done) */
  private live(org: string, runId: string): RunRecord {
    const r = this.store.read.run(org, runId);
    if (!r || runEnded(r)) throw new RunEnd();
    return r;
  }

  async run(job: QueuedJob, ctx: JobContext): Promise<unknown> {
    const { session_id, run_id } = job.input as AgentRunInput;
    const control = this.control.claim(run_id);
    // the run's one signal: its control's, aborted also when the job stops, with the job's reason
    const onStop = () => control.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onStop();
    else ctx.signal.addEventListener('abort', onStop, { once: true });
    const signal = control.signal;
    try {
      // servers mode: another replica may have queued the run; this one's read model must show
      // it (the hold's read catches the read model up to the stream's revision it read)
      const hold: Hold = { revision: await this.store.revisionToHold(AgentStreams.session(job.org, session_id)), job: ctx };
      await this.drive(hold, job.org, session_id, run_id, signal, ctx.signal);
    } catch (err) {
      if (err instanceof RunEnd) return { run_id };
      if (ctx.signal.aborted && ctx.signal.reason instanceof JobStopped) throw err;
      // cancelled here (an interrupt, an archive, a pause), not stopped with the job
      if (control.signal.aborted && control.signal.reason !== ctx.signal.reason) return { run_id };
      this.log.error(`run ${run_id} failed: ${(err as Error).message}`);
      await this.fail(job.org, session_id, run_id, 'internal_error', 'the run stopped on an internal error').catch(() => undefined);
    } finally {
      ctx.signal.removeEventListener('abort', onStop);
      this.control.release(run_id, control);
    }
    return { run_id };
  }

  /**
   * Fails the run unless it ended meanwhile: `AgentRunFailed` and its Trace closed (also the run
   * deadlines' timeout). `conditional`: the append expects the session stream's revision read
   * first, so that of two replicas failing the same run one does (the other then finds it ended).
   */
  async fail(org: string, sid: string, runId: string, code: string, message: string, conditional = false): Promise<void> {
    const s = this.store.read.session(org, sid);
    const agent = s && this.store.read.agent(org, s.agent_id);
    if (!s || !agent) return;
    const stream = AgentStreams.session(org, sid);
    await this.uow.run(this.ctxOf(agent, runId), async (tx) => {
      const expected = conditional ? await this.store.expectedRevision(stream) : 'any';
      const r = this.store.read.run(org, runId);
      if (!r || runEnded(r)) return;
      tx.emit(stream, 'AgentRunFailed', { ...this.base(s, runId, tx.now), error: { code, message } }, expected);
      await this.closeTrace(tx, r);
    });
  }

  private async drive(hold: Hold, org: string, sid: string, runId: string, signal: AbortSignal, jobSignal: AbortSignal): Promise<void> {
    let run = this.live(org, runId);
    let resumed = run.status !== 'queued';
    if (run.status === 'queued') {
      const agent = this.store.read.agent(org, run.agent_id)!;
      // runs of an organization beyond the plan's concurrent_runs stay queued (REFERENCE §17);
      // the slot is decided again in the start's own append (another run may have taken it meanwhile)
      for (let started = false; !started; ) {
        await this.waits.until(() => {
          const r = this.store.read.run(org, runId);
          return !r || runEnded(r) || this.store.read.runningCount(org) < this.plans.planOf({ org }).limits.concurrent_runs;
        }, jobSignal);
        run = this.live(org, runId);
        if (agent.status !== 'active') return this.cancel(hold, org, sid, runId, agent.status === 'archived' ? 'agent_archived' : 'agent_paused');
        if (await this.budgetStops(hold, agent, sid, runId)) return;
        started = await this.start(hold, agent, run);
      }
    }
    // what a step uses of the session never changes (its ids); what changes is read where it is decided
    const session = this.store.read.session(org, sid)!;
    // the run as just read, when nothing was awaited since (a run that started at once)
    let known: RunRecord | null = resumed || run.status !== 'queued' ? run : null;
    for (;;) {
      run = known ?? this.live(org, runId);
      known = null;
      // the agent is read at each step: an edit (instructions, tools, max_steps) applies from the next one
      const agent = this.store.read.agent(org, run.agent_id)!;
      // the session's rows kept in memory: only what was appended since the last step is read
      const events = this.sessionRows.ofRun(sid, runId);
      const pending = openCalls(events);
      if (pending.length) {
        await this.settleCalls(hold, agent, session, run, pending, events, resumed, signal);
        resumed = false;
        continue;
      }
      resumed = false;
      const step = events.filter((e) => e.type === 'inference.completed').length + 1;
      if (step > agent.max_steps) return this.failRun(hold, agent, session, run, 'max_steps_exceeded', `the run used its ${agent.max_steps} model calls without an answer`);
      if (await this.budgetStops(hold, agent, sid, runId)) return;
      // the answer recorded the run's end: nothing left to read
      if (await this.step(hold, agent, session, run, step, signal)) return;
    }
  }

  private async cancel(hold: Hold, org: string, sid: string, runId: string, reason: 'agent_paused' | 'agent_archived'): Promise<void> {
    const s = this.store.read.session(org, sid)!;
    const agent = this.store.read.agent(org, s.agent_id)!;
    await this.own(hold, agent, s, runId, async (tx) => {
      const fresh = this.store.read.session(org, sid)!;
      if (fresh.current_run !== runId && !fresh.queued_runs.some((q) => q.run_id === runId)) return;
      tx.emit(AgentStreams.session(org, sid), 'AgentRunCancelled', { ...this.base(s, runId, tx.now), reason, discarded_message_ids: [] });
    });
  }

  private async failRun(hold: Hold, agent: AgentRecord, s: SessionRecord, run: RunRecord, code: string, message: string): Promise<void> {
    await this.own(hold, agent, s, run.id, async (tx) => {
      this.live(s.org_id, run.id);
      tx.emit(AgentStreams.session(s.org_id, s.id), 'AgentRunFailed', { ...this.base(s, run.id, tx.now), error: { code, message } });
      await this.closeTrace(tx, run);
    });
  }

  /** Budget before a run and before each model call (REFERENCE §16.8): exhausted fails the run. */
  private async budgetStops(hold: Hold, agent: AgentRecord, sid: string, runId: string): Promise<boolean> {
    // servers mode: credits other replicas' runs recorded count before this one decides
    if (this.store.concurrentDeciders) await this.store.catchUp();
    const now = this.clock.now();
    const org = agent.org_id;
    const ex = budgetExhaustion(
      {
        daily_credit_budget: agent.daily_credit_budget,
        used_today: this.store.read.creditsOnDay(org, agent.id, utcDay(now)),
        month_limit: this.plans.planOf({ org }).limits.agent_credits_per_month,
        month_used: this.store.read.creditsInMonth(org, utcMonth(now)),
      },
      now,
    );
    if (!ex) return false;
    const s = this.store.read.session(org, sid)!;
    await this.own(hold, agent, s, runId, async (tx) => {
      const r = this.store.read.run(org, runId);
      if (!r || runEnded(r)) return;
      const stream = AgentStreams.session(org, sid);
      const day = utcDay(tx.now);
      if (!this.store.read.budgetNoticeSent(org, agent.id, day)) tx.emit(stream, 'AgentBudgetExhausted', { ...this.base(s, runId, tx.now), ...ex, day });
      tx.emit(stream, 'AgentRunFailed', { ...this.base(s, runId, tx.now), error: { code: 'budget_exhausted', message: `the ${ex.scope} credit budget is used up until ${new Date(ex.resets_at * 1000).toISOString()}` } });
      await this.closeTrace(tx, r);
    });
    return true;
  }

  /**
   * `run.started` with its Trace node, for a run that waited (queued behind a run or the plan's
   * slots); false when no slot is free after all (taken since the wait saw one, on this replica
   * or, through the claim, on another).
   */
  private async start(hold: Hold, agent: AgentRecord, run: RunRecord): Promise<boolean> {
    const org = agent.org_id;
    return this.own(hold, agent, { org_id: org, id: run.session_id }, run.id, async (tx) => {
      const counted = await this.store.planClaim(tx, 'concurrent_runs');
      const r = this.live(org, run.id);
      if (this.store.read.runningCount(org) >= this.plans.planOf({ org }).limits.concurrent_runs) return false;
      const s = this.store.read.session(org, r.session_id)!;
      // runs queued before runs were numbered in their session: counted across the organization, as then
      await stageRunStart(tx, s, r, r.number ?? this.store.read.runsSince(org, 0), await sessionNodeOf(tx, s), this.store.read.agent(org, agent.id) ?? agent);
      counted(r.id);
      return true;
    }, INTERMEDIATE);
  }

  private async closeTrace(tx: GraphTx, run: RunRecord): Promise<void> {
    if (!run.trace_uid) return;
    const n = await tx.node(run.trace_uid);
    if (!n || n.tombstone_at !== null) return;
    const props = { ...(n.props as unknown as Record<string, unknown>), ended_at: tx.now, entry_count: run.tool_calls };
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideMirrorVersion(n, props, tx.now), 'run ended'));
  }

  /** One model call and what it decided: the answer ends the run (true), tool calls are recorded for execution. */
  private async step(hold: Hold, agent: AgentRecord, s: SessionRecord, run: RunRecord, step: number, signal: AbortSignal): Promise<boolean> {
    // the call's usage is recorded with the step's own events, in one commit (below)
    const chat = this.models.forOrganization(agent.org_id, { requestId: run.id, principal: { kind: 'agent', id: agent.id }, agentId: agent.id }, { recordedByCaller: true });
    if (!chat) return this.failRun(hold, agent, s, run, 'llm_not_configured', 'no language model is configured').then(() => false);
    const messages = this.history(s, run);
    const mcpTools = await this.mcp.toolsFor(agent.org_id, agent.id);
    const tools = [...this.tools.specs(agent), ...mcpTools.filter((t) => !this.tools.isBuiltin(agent, t.model_name)).map((t) => ({ name: t.model_name, description: t.description, inputSchema: t.input_schema }))];
    const started = performance.now();
    let streamed = '';
    // the answer's id is known before it streams: its deltas and its message.assistant share it
    const messageId = this.ids.uuid();
    const onTextDelta = (t: string) => {
      streamed += t;
      this.deltas.publish(s.id, { run_id: run.id, message_id: messageId, step, delta: t, at: this.clock.now() });
    };
    let res: ChatResponse;
    try {
      res = await chat.chat({ system: this.preamble(agent), messages, tools, model: agent.model, signal, onTextDelta });
    } catch (err) {
      if (signal.aborted) {
        // interrupted: what had streamed is kept (REFERENCE §16.6)
        if (streamed && !(signal.reason instanceof JobStopped)) await this.keepInterrupted(hold, agent, s, run, streamed, messageId);
        throw err;
      }
      if (err instanceof UpstreamError) return this.failRun(hold, agent, s, run, 'upstream_error', err.message).then(() => false);
      throw err;
    }
    const duration = Math.round(performance.now() - started);
    const usage = { input_tokens: res.usage.inputTokens, output_tokens: res.usage.outputTokens };
    const credits = creditsOf(usage.input_tokens, usage.output_tokens);
    const stop = res.toolCalls.length ? 'tool_use' : res.stopReason === 'max_tokens' ? 'max_tokens' : 'end_turn';
    const entry = usageEntryOf(chat, { model: agent.model }, res);
    // the call was made: it counts (credits and the organization's model usage) even when the run was cancelled meanwhile (REFERENCE §16.8)
    const consumed = (tx: GraphTx) => {
      stageLlmUsage(tx, s.org_id, entry);
      tx.emit(Streams.org(s.org_id), 'CreditsConsumed', {
        org_id: s.org_id, amount: credits, reason: 'agent_model_call', at: tx.now, meter: 'agent', agent_id: agent.id, session_id: s.id, run_id: run.id, model: agent.model, ...usage,
      });
    };
    return this.own(hold, agent, s, run.id, async (tx) => {
      const stream = AgentStreams.session(s.org_id, s.id);
      const base = this.base(s, run.id, tx.now);
      consumed(tx);
      const r = this.store.read.run(s.org_id, run.id);
      if (!r || runEnded(r)) return true;
      tx.emit(stream, 'AgentInferenceCompleted', { ...base, step, model: agent.model, stop_reason: stop, usage, credits, duration_ms: duration, text: res.toolCalls.length ? res.text : '' });
      if (!res.toolCalls.length) {
        tx.emit(stream, 'AgentMessageProduced', { ...base, message_id: messageId, content: res.text, interrupted: false });
        const totals = { input_tokens: r.usage.input_tokens + usage.input_tokens, output_tokens: r.usage.output_tokens + usage.output_tokens };
        tx.emit(stream, 'AgentRunCompleted', { ...base, stop_reason: stop === 'max_tokens' ? 'max_tokens' : 'end_turn', steps: step, tool_calls: r.tool_calls, usage: totals, credits: r.credits + credits });
        await this.closeTrace(tx, r);
        return true;
      }
      await this.requestCalls(tx, agent, s, r, step, res.toolCalls, mcpTools);
      return false;
      // the answer ends the run and answers a waiting client: durable; a turn of tool calls is a step within it
    }, res.toolCalls.length ? INTERMEDIATE : undefined).catch(async (err: unknown) => {
      // the step's unit did not commit (another runner holds the run, conflicts ran out, the
      // store failed): the call's answer is not recorded, but the call was made and its cost is
      await this.uow.run(this.ctxOf(agent, run.id), async (tx) => consumed(tx)).catch(() => undefined);
      throw err;
    });
  }

  private async keepInterrupted(hold: Hold, agent: AgentRecord, s: SessionRecord, run: RunRecord, text: string, messageId: string): Promise<void> {
    await this.own(hold, agent, s, run.id, async (tx) => {
      tx.emit(AgentStreams.session(s.org_id, s.id), 'AgentMessageProduced', { ...this.base(s, run.id, tx.now), message_id: messageId, content: text, interrupted: true });
    });
  }

  /** `tool.call` for each call of the turn, in the model's order, each built-in one with its Execution node. */
  private async requestCalls(tx: GraphTx, agent: AgentRecord, s: SessionRecord, r: RunRecord, step: number, calls: ToolCall[], mcpTools: AgentMcpTool[]): Promise<void> {
    const stream = AgentStreams.session(s.org_id, s.id);
    const agentNode = await tx.node(agent.node_uid);
    const trace = r.trace_uid ? await tx.node(r.trace_uid) : null;
    let order = r.tool_calls;
    for (const c of calls) {
      let execution: NodeRecord | null = null;
      const builtin = c.name !== ASK_USER_TOOL && this.tools.isBuiltin(agent, c.name);
      const mcp = builtin ? undefined : mcpTools.find((t) => t.model_name === c.name);
      if (builtin || mcp) {
        execution = createNode(
          tx,
          {
            label: `${c.name} (${agent.name})`,
            props: {
              description: `${agent.name} calls ${mcp ? `${mcp.tool_name} of ${mcp.connection_name}` : c.name}`,
              agent_uid: agent.node_uid,
              ...(mcp ? { affordance_uid: mcp.affordance_uid } : {}),
              status: 'running',
              started_at: tx.now,
              input_snapshot: isObject(c.arguments) ? c.arguments : { raw: c.arguments },
              reversible: false,
            },
          },
          { forcedType: 'Execution' },
        );
        if (agentNode && agentNode.tombstone_at === null) createEdge(tx, { edge_type: 'ExecutedBy' }, execution, agentNode);
        if (trace && trace.tombstone_at === null) createEdge(tx, { edge_type: 'TraceEntry', props: { order: ++order } }, trace, execution);
        if (mcp) {
          // an MCP call targets the tool's Affordance (REFERENCE §16.10)
          const affordance = await tx.node(mcp.affordance_uid);
          if (affordance && affordance.tombstone_at === null) createEdge(tx, { edge_type: 'Targets' }, execution, affordance);
        }
      }
      tx.emit(stream, 'AgentToolCallRequested', {
        ...this.base(s, r.id, tx.now),
        step,
        tool_call_id: c.id,
        name: c.name,
        source: mcp ? 'mcp' : 'builtin',
        connection_id: mcp?.connection_id ?? null,
        tool_name: mcp?.tool_name ?? c.name,
        arguments: c.arguments,
        execution_uid: execution?.uid ?? null,
      });
    }
  }

  /**
   * The turn's calls without a result, in order: checked, run, recorded. `resumed`: this job
   * picked the run up again after a restart, so a call that may have been running is not
   * repeated.
   */
  private async settleCalls(hold: Hold, agent: AgentRecord, s: SessionRecord, run: RunRecord, pending: RowOf<'tool.call'>[], events: readonly SessionEventRow[], resumed: boolean, signal: AbortSignal): Promise<void> {
    const calls = pending.map((c) => c.data);
    // MCP calls are governed first; the turn's approvals are requested together and all awaited (REFERENCE §16.4, §16.5)
    const waiting = new Set(this.approvals.ofRun(run.id).filter((a) => a.status === 'pending').map((a) => a.tool_call_id));
    const denied = resumed ? new Map<string, ToolOutcome>() : await this.governTurn(agent, s, run, calls, waiting);
    await this.waits.until(() => {
      const r = this.store.read.run(s.org_id, run.id);
      return !r || runEnded(r) || this.approvals.ofRun(run.id).every((a) => a.status !== 'pending');
    }, signal);
    this.live(s.org_id, run.id);
    const decided = new Map(this.approvals.ofRun(run.id).map((a) => [a.tool_call_id, a]));
    // a cancelled approval ends the run (REFERENCE §15.10); interrupts and archives already ended it
    if (calls.some((d) => decided.get(d.tool_call_id)?.status === 'cancelled')) return this.failRun(hold, agent, s, run, 'approval_cancelled', 'an approval this run waited for was cancelled');
    for (const d of calls) {
      if (d.name === ASK_USER_TOOL && agent.tools.includes(ASK_USER_TOOL)) {
        await this.askUser(hold, agent, s, run, d, events, signal);
        return;
      }
      const approval = decided.get(d.tool_call_id);
      const refusal = approval ? approvalOutcomeError(approval) : null;
      if (denied.has(d.tool_call_id) || refusal) {
        const o = denied.get(d.tool_call_id) ?? { status: approval!.status === 'denied' ? ('denied' as const) : ('error' as const), result: { code: refusal!.code, approval_id: approval!.id }, error: refusal, created: [] };
        await this.complete(hold, agent, s, run, d, o, 0);
        continue;
      }
      // after a restart a call may have been running: not repeated, unless it was still waiting for its approval then
      if (resumed && !waiting.has(d.tool_call_id)) {
        await this.complete(hold, agent, s, run, d, { status: 'error', result: { code: 'interrupted' }, error: { code: 'interrupted', message: 'the service restarted while this call ran; it was not repeated' }, created: [] }, 0);
        continue;
      }
      let outcome;
      const started = performance.now();
      if (d.source === 'mcp') outcome = await this.callMcp(agent, d, signal);
      else if (!agent.tools.includes(d.name) || !this.tools.isBuiltin(agent, d.name) && d.name !== ASK_USER_TOOL)
        outcome = { status: 'error' as const, result: { code: 'unknown_tool' }, error: { code: 'unknown_tool', message: `no tool named ${d.name}` }, created: [] };
      else if (!isObject(d.arguments))
        outcome = { status: 'error' as const, result: { code: 'invalid_arguments' }, error: { code: 'invalid_arguments', message: 'the arguments must be a JSON object' }, created: [] };
      else {
        outcome = await this.tools.call(agent, this.plans.planOf({ org: agent.org_id }).id, d.name, d.arguments, approval?.status === 'approved' ? approval.id : null);
        // a policy holds this built-in call for a person (REFERENCE §15.10): the run waits for it like an MCP approval
        if (!approval && outcome.error?.code === 'approval_required') return this.requestBuiltinApproval(agent, s, run, d, outcome);
      }
      await this.complete(hold, agent, s, run, d, outcome, Math.round(performance.now() - started));
      if (signal.aborted) throw signal.reason;
    }
  }

  /**
   * Governance of the turn's MCP calls not decided yet (REFERENCE §15.10): a policy `deny`
   * refuses one (`denied_by_policy`, returned for recording with the results); a policy
   * `require_approval` or the connection's mode asks for an approval. Every decision of the
   * turn is recorded in one unit of work.
   */
  private async governTurn(agent: AgentRecord, s: SessionRecord, run: RunRecord, calls: CallData[], waiting: Set<string>): Promise<Map<string, ToolOutcome>> {
    const asked = new Set(this.approvals.ofRun(run.id).map((a) => a.tool_call_id));
    const open = calls.filter((d) => d.source === 'mcp' && !asked.has(d.tool_call_id) && isObject(d.arguments));
    const denied = new Map<string, ToolOutcome>();
    if (!open.length) return denied;
    const offered = await this.mcp.toolsFor(agent.org_id, agent.id);
    const governed: { d: CallData; tool: AgentMcpTool; g: GovernedCall }[] = [];
    for (const d of open) {
      const tool = offered.find((t) => t.model_name === d.name);
      if (tool) governed.push({ d, tool, g: await this.approvals.govern(agent.org_id, agent.id, s.id, tool) });
      // not offered now, so not governed: it must not run later, when the tool may be back
      // (another call's approval can keep the turn waiting for hours)
      else denied.set(d.tool_call_id, { status: 'error', result: { code: 'tool_unavailable' }, error: { code: 'tool_unavailable', message: `${d.name} is not offered to this agent any more` }, created: [] });
    }
    if (!governed.length) return denied;
    await this.uow.run(this.ctxOf(agent, run.id), async (tx) => {
      this.live(s.org_id, run.id);
      for (const { d, tool, g } of governed) {
        const v = g.verdict;
        if (v.verdict === 'approval') {
          const a = await this.approvals.stageRequest(tx, { agent: { id: agent.id, name: agent.name }, session_id: s.id, run_id: run.id, tool_call_id: d.tool_call_id, tool, arguments: d.arguments, reasons: v.reasons });
          waiting.add(d.tool_call_id);
          g.record(tx, a.id);
          continue;
        }
        if (v.verdict === 'deny')
          denied.set(d.tool_call_id, { status: 'denied', result: { code: 'denied_by_policy', policy_uid: v.policy_uid }, error: { code: 'denied_by_policy', message: `policy ${v.policy_name} denies this call` }, created: [] });
        g.record(tx, null);
      }
    });
    return denied;
  }

  /** A `builtin_tool` approval for a call the route's policy gate held; the drive loop then waits for it. */
  private async requestBuiltinApproval(agent: AgentRecord, s: SessionRecord, run: RunRecord, d: CallData, o: ToolOutcome): Promise<void> {
    const held = (o.result ?? {}) as { policy_uid?: string; policy_name?: string };
    await this.uow.run(this.ctxOf(agent, run.id), async (tx) => {
      this.live(s.org_id, run.id);
      this.approvals.stageBuiltinRequest(tx, {
        agent: { id: agent.id, name: agent.name }, session_id: s.id, run_id: run.id, tool_call_id: d.tool_call_id, tool_name: d.name, arguments: d.arguments,
        policy_uid: held.policy_uid ?? '', policy_name: held.policy_name ?? null,
      });
    });
  }

  /** An MCP call through the agent's tool source; a tool no longer offered is a tool error. */
  private async callMcp(agent: AgentRecord, d: CallData, signal: AbortSignal): Promise<ToolOutcome> {
    const tool = (await this.mcp.toolsFor(agent.org_id, agent.id)).find((t) => t.model_name === d.name);
    if (!tool) return { status: 'error', result: { code: 'tool_unavailable' }, error: { code: 'tool_unavailable', message: `${d.name} is not offered to this agent any more` }, created: [] };
    if (!isObject(d.arguments)) return { status: 'error', result: { code: 'invalid_arguments' }, error: { code: 'invalid_arguments', message: 'the arguments must be a JSON object' }, created: [] };
    // the call leaves the process: the steps that recorded it must survive a crash first, so
    // that a resumed run finds it requested and never makes it twice
    await this.uow.durable();
    const r = await this.mcp.call(agent.org_id, agent.id, tool, d.arguments, signal);
    return { ...r, created: [] };
  }

  private async complete(hold: Hold, agent: AgentRecord, s: SessionRecord, run: RunRecord, d: { tool_call_id: string; name: string; execution_uid: string | null }, o: ToolOutcome, ms: number): Promise<void> {
    await this.own(hold, agent, s, run.id, async (tx) => {
      this.live(s.org_id, run.id);
      tx.emit(AgentStreams.session(s.org_id, s.id), 'AgentToolCallCompleted', {
        ...this.base(s, run.id, tx.now), tool_call_id: d.tool_call_id, name: d.name, status: o.status, result: capToolResult(o.result), error: o.error, duration_ms: ms, execution_uid: d.execution_uid,
      });
      if (!d.execution_uid) return;
      const n = await tx.node(d.execution_uid);
      if (!n || n.tombstone_at !== null) return;
      const output = capToolResult(o.result);
      const props = {
        ...(n.props as unknown as Record<string, unknown>),
        status: o.status === 'ok' ? 'completed' : 'failed',
        completed_at: tx.now,
        output_snapshot: isObject(output) ? output : { value: capToolResult(o.result, TOOL_RESULT_BYTES - SNAPSHOT_WRAP_BYTES) },
        ...(o.error ? { error: o.status === 'denied' ? `denied: ${o.error.message}` : `${o.error.code}: ${o.error.message}` } : {}),
      };
      tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideMirrorVersion(n, props, tx.now), 'tool call ended'));
      for (const uid of o.created) {
        const made = await tx.node(uid);
        if (made && made.tombstone_at === null) createEdge(tx, { edge_type: 'ProducesNode' }, n, made);
      }
    });
  }

  /** `ask_user`: the run waits (requires_action) until someone answers or the question expires. */
  private async askUser(hold: Hold, agent: AgentRecord, s: SessionRecord, run: RunRecord, d: { tool_call_id: string; name: string; arguments: unknown; execution_uid: string | null }, events: readonly SessionEventRow[], signal: AbortSignal): Promise<void> {
    const asked = events.filter(isRow('input.requested')).find((e) => e.data.request_id && this.requestOf(d.tool_call_id, events) === e.data.request_id);
    if (!asked) {
      const args = isObject(d.arguments) ? d.arguments : {};
      const question = typeof args.question === 'string' && args.question.trim() ? args.question : null;
      if (!question) return this.complete(hold, agent, s, run, d, { status: 'error', result: { code: 'invalid_arguments' }, error: { code: 'invalid_arguments', message: 'ask_user needs a question' }, created: [] }, 0);
      const options = Array.isArray(args.options) ? args.options.filter((o): o is string => typeof o === 'string') : null;
      await this.own(hold, agent, s, run.id, async (tx) => {
        this.live(s.org_id, run.id);
        tx.emit(AgentStreams.session(s.org_id, s.id), 'AgentInputRequested', {
          ...this.base(s, run.id, tx.now), request_id: tx.uuid(), tool_call_id: d.tool_call_id, prompt: question, options, expires_at: tx.now + INPUT_TTL_S,
        });
      });
    }
    // answered (input.provided) or the run ended
    await this.waits.until(() => {
      const r = this.store.read.run(s.org_id, run.id);
      const fresh = this.store.read.session(s.org_id, s.id);
      return !r || runEnded(r) || !fresh || fresh.pending_input?.tool_call_id !== d.tool_call_id;
    }, signal);
    const mine = this.sessionRows.ofRun(s.id, run.id);
    const request = this.requestOf(d.tool_call_id, mine);
    const provided = mine
      .filter(isRow('input.provided'))
      .map((e) => e.data)
      .find((p) => p.request_id === request);
    if (!provided) return;
    await this.complete(hold, 
      agent, s, run, d,
      provided.expired
        ? { status: 'error', result: { code: 'input_expired' }, error: { code: 'input_expired', message: 'nobody answered in time' }, created: [] }
        : { status: 'ok', result: { response: provided.response }, error: null, created: [] },
      0,
    );
  }

  /** the request id of the question a call asked (the input.requested after its tool.call) */
  private requestOf(toolCallId: string, events: readonly SessionEventRow[]): string | null {
    const i = events.findIndex((e) => e.type === 'tool.call' && e.data.tool_call_id === toolCallId);
    if (i < 0) return null;
    const asked = events.slice(i + 1).find(isRow('input.requested'));
    return asked ? asked.data.request_id : null;
  }

  private preamble(agent: AgentRecord): string {
    const now = new Date(this.clock.now() * 1000).toISOString();
    return [
      `You are "${agent.name}", a managed agent of Strata, working inside the knowledge graph of organization ${agent.org_id}. The time is ${now} (UTC).`,
      'Use the tools you are offered to read and write the graph; when you rely on a node, cite its uid. When a decision is needed from a person, ask with ask_user if you have it.',
      '',
      agent.instructions,
    ].join('\n');
  }

  /**
   * The conversation the model sees: earlier runs of the session (oldest dropped beyond
   * 100,000 estimated tokens), then this run whole.
   */
  private history(s: SessionRecord, current: RunRecord): ChatMessage[] {
    return this.sessionRows.conversation(s.id, current.id, HISTORY_TOKENS * 4);
  }
}

/** The recorded calls of a run that have no result yet, in order. */
function openCalls(events: readonly SessionEventRow[]): RowOf<'tool.call'>[] {
  const done = new Set(events.filter(isRow('tool.result')).map((e) => e.data.tool_call_id));
  return events.filter(isRow('tool.call')).filter((e) => !done.has(e.data.tool_call_id));
}
