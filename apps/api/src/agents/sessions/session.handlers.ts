import { decideMirrorVersion, GraphChanges } from '@strata/domain/graph';
import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { MeteredLanguageModels } from '@strata/ai/llm/metered-language-models';
import { LlmNotConfiguredError } from '@strata/ai/errors';
import {
  AgentErrors,
  AgentRecord,
  AgentStreams,
  Sender,
  SessionRecord,
  RUN_END_EVENT_TYPES,
  budgetExhaustion,
  runEnded,
  utcDay,
  utcMonth,
} from '@strata/domain/agents';
import { DomainError, Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { createNode } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AgentsStore } from '../agents-store';
import { iso, paginated, presentRun, presentSession } from '../agent-presenters';
import { AgentRuns } from '../runtime/agent-runs';
import { RunControl, stageRunCancel } from '../runtime/run-control';
import { ToolApprovals } from '@strata/mcp/approvals';
import { RunWaits } from '../runtime/run-waits';
import { SessionHistory } from '../runtime/session-history';
import { sessionNodeOf, stageRunStart } from '../runtime/run-start';

/** messages waiting behind a session's run (REFERENCE §16.6) */
const QUEUE_MAX = 20;

interface Staged {
  message_id: string;
  run_id: string;
  /** the run's place among the session's runs (its Trace's label); null in a session folded before runs were counted */
  number: number | null;
  queue_position: number;
  trigger: { kind: 'message' | 'schedule'; message_id: string };
}

/** Sessions (REFERENCE §16.6): create, list, read, message, interrupt, archive, pending input, respond, events. */
@Injectable()
export class SessionHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly store: AgentsStore,
    private readonly plans: PlanLimits,
    private readonly models: MeteredLanguageModels,
    private readonly runs: AgentRuns,
    private readonly control: RunControl,
    private readonly waits: RunWaits,
    private readonly approvals: ToolApprovals,
    private readonly history: SessionHistory,
  ) {}

  private sender(auth: AuthContext): Sender {
    return auth.credential === 'api_key' ? { kind: 'api_key', id: auth.api_key_id ?? auth.principal.id } : { kind: 'user', id: auth.principal.id };
  }

  /** What refuses a message before anything is written (REFERENCE §16.6): state, budget, provider. */
  private assertCanRun(agent: AgentRecord): void {
    if (agent.status === 'archived') throw AgentErrors.archived(agent.id);
    if (agent.status === 'paused') throw AgentErrors.paused(agent.id);
    const now = this.clock.now();
    const ex = budgetExhaustion(
      {
        daily_credit_budget: agent.daily_credit_budget,
        used_today: this.store.read.creditsOnDay(agent.org_id, agent.id, utcDay(now)),
        month_limit: this.plans.planOf({ org: agent.org_id }).limits.agent_credits_per_month,
        month_used: this.store.read.creditsInMonth(agent.org_id, utcMonth(now)),
      },
      now,
    );
    if (ex)
      throw new DomainError(429, 'budget_exhausted', `the ${ex.scope} credit budget is used up`, {
        scope: ex.scope, budget: ex.budget, used: ex.used, resets_at: iso(ex.resets_at), retry_after: Math.max(1, ex.resets_at - now),
      });
    if (!this.models.forOrganization(agent.org_id)) throw new LlmNotConfiguredError();
  }

  /** 409 `queue_full`: a state of the session, refused before the budget and the provider (REFERENCE §16.1) */
  private assertQueueRoom(s: SessionRecord): void {
    if (s.queued_runs.length >= QUEUE_MAX && s.current_run !== null)
      throw new DomainError(409, 'queue_full', `${QUEUE_MAX} messages already wait in this session`, { queued_messages: s.queued_runs.length });
  }

  private stageMessage(tx: GraphTx, agent: AgentRecord, s: SessionRecord, content: string, metadata: Record<string, unknown> | null, sender: Sender): Staged {
    this.assertQueueRoom(s);
    const message_id = this.ids.uuid();
    const run_id = this.ids.uuid();
    const queued = s.current_run !== null;
    const base = { org_id: s.org_id, agent_id: agent.id, session_id: s.id, run_id, at: tx.now };
    const stream = AgentStreams.session(s.org_id, s.id);
    tx.emit(stream, 'AgentMessageReceived', { ...base, message_id, content, metadata, sender, queued });
    const trigger = { kind: sender.kind === 'schedule' ? ('schedule' as const) : ('message' as const), message_id };
    const number = s.run_count === undefined ? null : s.run_count + 1;
    tx.emit(stream, 'AgentRunQueued', { ...base, trigger, model: agent.model, ...(number === null ? {} : { number }) });
    return { message_id, run_id, number, queue_position: queued ? s.queued_runs.length + 1 : 0, trigger };
  }

  /**
   * A message to an idle session whose organization has a run slot free starts its run in the
   * same append (`run.started` and its Trace node): the run job then goes straight to the
   * model. Otherwise the job starts the run once it may. Decided on the state this unit of
   * work reads, as the job would decide it.
   */
  private async startAtOnce(tx: GraphTx, agentId: string, s: Pick<SessionRecord, 'org_id' | 'agent_id' | 'id' | 'node_uid'>, staged: Staged, sessionNode: () => Promise<NodeRecord>): Promise<void> {
    if (staged.queue_position !== 0) return;
    const agent = this.store.read.agent(s.org_id, agentId);
    if (!agent || agent.status !== 'active') return;
    // servers mode: the slot is claimed across replicas before the count (AgentsStore.planClaim)
    const counted = await this.store.planClaim(tx, 'concurrent_runs');
    if (this.store.read.runningCount(s.org_id) >= this.plans.planOf({ org: s.org_id }).limits.concurrent_runs) return;
    await stageRunStart(tx, s, { id: staged.run_id, trigger: staged.trigger, model: agent.model }, staged.number ?? this.store.read.runsSince(s.org_id, 0) + 1, await sessionNode(), agent);
    counted(staged.run_id);
  }

  async create(auth: AuthContext, rid: string, body: { agent_id: string; title?: string; metadata?: Record<string, unknown>; message?: string }) {
    this.store.assertAvailable();
    const agent = this.store.agent(auth, body.agent_id);
    if (agent.status === 'archived') throw AgentErrors.archived(agent.id);
    if (agent.status === 'paused') throw AgentErrors.paused(agent.id);
    if (body.message !== undefined) {
      if (this.store.concurrentDeciders) await this.store.catchUp();
      this.assertCanRun(agent);
    }
    const id = this.ids.uuid();
    const staged = await this.uow.run(commandContext(auth, rid), async (tx) => {
      const node = createNode(tx, { label: body.title ?? `Session with ${agent.name}`, props: { session_type: 'agent', started_at: tx.now } }, { forcedType: 'Session' });
      const created = {
        org_id: auth.org_id, agent_id: agent.id, session_id: id, run_id: null, at: tx.now,
        title: body.title ?? null, metadata: body.metadata ?? null, node_uid: node.uid, source: 'api' as const, schedule_id: null, created_by: { kind: auth.principal.kind, id: auth.principal.id },
      };
      tx.emit(AgentStreams.session(auth.org_id, id), 'AgentSessionCreated', created, 'no_stream');
      if (body.message === undefined) return null;
      const fresh: SessionRecord = { id, org_id: auth.org_id, agent_id: agent.id, node_uid: node.uid, current_run: null, queued_runs: [], run_count: 0 } as unknown as SessionRecord;
      const staged = this.stageMessage(tx, agent, fresh, body.message, null, this.sender(auth));
      await this.startAtOnce(tx, agent.id, fresh, staged, async () => node);
      return staged;
    });
    if (staged) await this.runs.enqueue(auth.org_id, { session_id: id, run_id: staged.run_id });
    const s = this.store.session(auth, id);
    return { ...presentSession(s, this.store.read, this.clock.now()), ...(staged ? { message_id: staged.message_id, run_id: staged.run_id } : {}) };
  }

  list(auth: AuthContext, agentId: string | undefined, status: string | undefined, limit: number, offset: number) {
    const filterAgent = auth.bound_agent_id ?? agentId;
    if (auth.bound_agent_id && agentId && agentId !== auth.bound_agent_id) return paginated([], limit, offset, false);
    const rows = this.store.read.sessions(auth.org_id, { agent_id: filterAgent, status, limit: limit + 1, offset });
    return paginated(rows.slice(0, limit).map((s) => presentSession(s, this.store.read, this.clock.now())), limit, offset, rows.length > limit);
  }

  get(auth: AuthContext, sid: string) {
    return presentSession(this.store.session(auth, sid), this.store.read, this.clock.now());
  }

  async message(auth: AuthContext, rid: string, sid: string, body: { content: string; metadata?: Record<string, unknown>; wait?: boolean; wait_timeout_s?: number }) {
    const s = this.store.session(auth, sid);
    if (s.archived_at !== null) throw Errors.invalidTransition(`session ${sid} is archived`, 'archived', []);
    // servers mode: credits another replica recorded count before this one decides
    if (this.store.concurrentDeciders) await this.store.catchUp();
    const agent = this.store.read.agent(auth.org_id, s.agent_id)!;
    this.assertQueueRoom(s);
    this.assertCanRun(agent);
    const staged = await this.uow.run(commandContext(auth, rid), async (tx) => {
      // servers mode: two replicas taking messages for one session at once must not both find it idle
      const stream = AgentStreams.session(auth.org_id, sid);
      tx.expect(stream, await this.store.expectedRevision(stream));
      const fresh = this.store.session(auth, sid);
      if (fresh.archived_at !== null) throw Errors.invalidTransition(`session ${sid} is archived`, 'archived', []);
      const staged = this.stageMessage(tx, agent, fresh, body.content, body.metadata ?? null, this.sender(auth));
      await this.startAtOnce(tx, agent.id, fresh, staged, () => sessionNodeOf(tx, fresh));
      return staged;
      // a waiting client is answered only after the run's last commit, durable (below): the
      // message and the run's start need no fsync of their own, they share that one (or the
      // deferral's bound's, for a slow model). A 202 answers now: its commit is durable first.
    }, body.wait ? { durability: 'deferred' } : undefined);
    await this.runs.enqueue(auth.org_id, { session_id: sid, run_id: staged.run_id });
    if (body.wait) {
      const ended = await this.waits.until(() => {
        const status = this.store.read.runStatus(auth.org_id, staged.run_id);
        return status !== null && runEnded({ status });
      }, undefined, (body.wait_timeout_s ?? 60) * 1000, (e) => RUN_END_EVENT_TYPES.has(e.type));
      // whatever the answer says (the run's end, or 202 at the timeout) is on disk before it leaves
      await this.uow.durable();
      if (ended) {
        const run = this.store.read.run(auth.org_id, staged.run_id)!;
        // the run's events as the runtime keeps them: only what was listed since is read, not the session's history
        const answers = this.history.ofRun(sid, staged.run_id).flatMap((e) => (e.type === 'message.assistant' ? [e.data.content] : []));
        const output = answers.length ? answers[answers.length - 1] : null;
        return { status: 200, body: { message_id: staged.message_id, session_id: sid, run_id: staged.run_id, run: presentRun(run), output } };
      }
    }
    const run = this.store.read.run(auth.org_id, staged.run_id);
    return { status: 202, body: { message_id: staged.message_id, session_id: sid, run_id: staged.run_id, run_status: run?.status ?? 'queued', queue_position: staged.queue_position } };
  }

  async interrupt(auth: AuthContext, rid: string, sid: string) {
    const s = this.store.session(auth, sid);
    if (s.current_run === null) return { session_id: sid, interrupted: false, run_id: null, discarded_message_ids: [] };
    const c = await this.uow.run(commandContext(auth, rid), async (tx) => stageRunCancel(tx, this.store.session(auth, sid), 'interrupted', this.approvals));
    if (c) this.control.abort([c.run_id]);
    return { session_id: sid, interrupted: c !== null, run_id: c?.run_id ?? null, discarded_message_ids: c?.discarded_message_ids ?? [] };
  }

  async archive(auth: AuthContext, rid: string, sid: string) {
    const s = this.store.session(auth, sid);
    if (s.archived_at !== null) return presentSession(s, this.store.read, this.clock.now());
    const c = await this.uow.run(commandContext(auth, rid), async (tx) => {
      const fresh = this.store.session(auth, sid);
      const cancelled = await stageRunCancel(tx, fresh, 'session_archived', this.approvals);
      tx.emit(AgentStreams.session(auth.org_id, sid), 'AgentSessionArchived', { org_id: auth.org_id, agent_id: fresh.agent_id, session_id: sid, run_id: null, at: tx.now, by: auth.principal.id });
      const n = await tx.node(fresh.node_uid);
      if (n && n.tombstone_at === null) {
        const props = { ...(n.props as unknown as Record<string, unknown>), ended_at: tx.now };
        tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideMirrorVersion(n, props, tx.now), 'session archived'));
      }
      return cancelled;
    });
    if (c) this.control.abort([c.run_id]);
    return presentSession(this.store.session(auth, sid), this.store.read, this.clock.now());
  }

  pendingInput(auth: AuthContext, sid: string) {
    const p = this.store.session(auth, sid).pending_input;
    return {
      pending: p !== null,
      request: p ? { request_id: p.request_id, run_id: p.run_id, prompt: p.prompt, options: p.options, requested_at: iso(p.requested_at), expires_at: iso(p.expires_at) } : null,
    };
  }

  async respond(auth: AuthContext, rid: string, sid: string, body: { response: string; request_id?: string }) {
    const s = this.store.session(auth, sid);
    const p = s.pending_input;
    if (!p) throw Errors.invalidTransition('no input is pending in this session', s.status, []);
    if (body.request_id !== undefined && body.request_id !== p.request_id) throw Errors.notFound(`input request ${body.request_id} not found`, { field: 'request_id' });
    // the answer resumes the run at a model call: without a model nothing is written (REFERENCE §16.2)
    if (!this.models.forOrganization(s.org_id)) throw new LlmNotConfiguredError();
    await this.uow.run(commandContext(auth, rid), async (tx) => {
      const fresh = this.store.session(auth, sid).pending_input;
      if (!fresh || fresh.request_id !== p.request_id) throw Errors.invalidTransition('no input is pending in this session', s.status, []);
      tx.emit(AgentStreams.session(auth.org_id, sid), 'AgentInputProvided', {
        org_id: auth.org_id, agent_id: s.agent_id, session_id: sid, run_id: p.run_id, at: tx.now,
        request_id: p.request_id, tool_call_id: p.tool_call_id, response: body.response, responded_by: this.sender(auth), expired: false,
      });
    });
    const run = this.store.read.run(auth.org_id, p.run_id);
    return { request_id: p.request_id, run_id: p.run_id, run_status: run?.status ?? 'running' };
  }

  events(auth: AuthContext, sid: string, q: { after: number; types?: string[]; run_id?: string; limit: number; offset: number }) {
    this.store.session(auth, sid);
    const rows = this.store.read.events(sid, { ...q, limit: q.limit + 1 });
    return paginated(
      rows.slice(0, q.limit).map((e) => ({ seq: e.seq, session_id: e.session_id, run_id: e.run_id, type: e.type, created_at: iso(e.created_at), data: e.data })),
      q.limit,
      q.offset,
      rows.length > q.limit,
    );
  }
}
