import { decideMirrorVersion, GraphChanges } from '@strata/domain/graph';
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { AuthErrors } from '@strata/auth/auth-errors';
import { Errors } from '@strata/domain/errors';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { MeteredLanguageModels } from '@strata/ai/llm/metered-language-models';
import {
  AGENT_TEMPLATES,
  AgentContext,
  AgentInput,
  AgentRecord,
  AgentStreams,
  agentNameKey,
  agentNodeProps,
  assertAgentFields,
  decideArchiveAgent,
  decideCreateAgent,
  decideUpdateAgent,
} from '@strata/domain/agents';
import { NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { Streams } from '@strata/domain/events';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { createNode } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { assertScopeTargets } from '@strata/platform/scope/scope-targets';
import { AgentsStore } from '../agents-store';
import { iso, paginated, presentAgent } from '../agent-presenters';
import { RunControl, stageRunCancel } from '../runtime/run-control';
import { ScheduleTimers } from '../schedules/schedule-timers';

/** how far ahead `/work` lists a schedule's next firing */
const UPCOMING_S = 7 * 86400;
import { ToolApprovals, presentApproval } from '@strata/mcp/approvals';
import { readResolveInput } from '@strata/domain/mcp';

/** Managed agents (REFERENCE §16.3): create, list, read, PATCH (pause, resume), archive. */
@Injectable()
export class AgentHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly accountsUow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly store: AgentsStore,
    private readonly plans: PlanLimits,
    private readonly models: MeteredLanguageModels,
    private readonly accounts: AccountsReadModel,
    private readonly control: RunControl,
    private readonly timers: ScheduleTimers,
    private readonly approvals: ToolApprovals,
  ) {}

  private context(org: string, except: string | null): AgentContext {
    return { defaultModel: this.models.model && this.models.provider !== 'offline' ? this.models.model : null, models: this.models.models, takenNames: this.store.read.takenNames(org, except) };
  }

  /** The Spaces and Projects a scope names must be live ones of the organization (404 otherwise). */
  private async assertScope(tx: GraphTx, input: AgentInput): Promise<void> {
    if (input.scope) await assertScopeTargets((uid) => tx.node(uid), input.scope, 'scope.');
  }

  private agentNodeProps(a: AgentRecord): Record<string, unknown> {
    return agentNodeProps(a);
  }

  /**
   * Names are unique among an organization's live agents, decided on the read model, which in
   * servers mode is each replica's own mirror: two replicas could both find a name free. So a
   * write that takes a name also appends to that name's stream, expecting the revision read
   * here (with the mirror caught up to it, before the check): of two concurrent writers one
   * commits, the other's append is refused and the unit of work decides it again at the log's
   * head, where the name is taken (409). The embedded default decides one write at a time on a
   * current read model: no lock, no extra event there.
   */
  private async nameLock(tx: GraphTx, name: string | undefined): Promise<(agentId: string) => void> {
    if (!this.store.concurrentDeciders || typeof name !== 'string') return () => undefined;
    const key = agentNameKey(name);
    const stream = AgentStreams.name(tx.org, createHash('sha256').update(key).digest('hex').slice(0, 32));
    const expected = await this.store.expectedRevision(stream);
    return (agentId) => tx.emit(stream, 'AgentNameClaimed', { org_id: tx.org, agent_id: agentId, name_key: key, at: tx.now }, expected);
  }

  async create(auth: AuthContext, rid: string, input: AgentInput) {
    this.store.assertAvailable();
    // REFERENCE §16.1: the body, then the Projects it names, then a taken name, then the plan
    assertAgentFields(input, this.context(auth.org_id, null), { create: true });
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      await this.assertScope(tx, input);
      const claim = await this.nameLock(tx, input.name);
      const counted = await this.store.planClaim(tx, 'agents');
      const id = this.ids.uuid();
      const draft = decideCreateAgent(input, { id, node_uid: '' }, auth.org_id, auth.principal.id, this.context(auth.org_id, null), tx.now);
      const plan = this.plans.planOf(auth);
      const max = plan.limits.agents;
      const current = this.store.read.liveAgentCount(auth.org_id);
      if (max !== null && current >= max) throw AuthErrors.planLimitReached('agents', max, current, plan.id);
      const node = createNode(tx, { label: draft.name, props: this.agentNodeProps(draft) }, { forcedType: 'Agent' });
      const agent: AgentRecord = { ...draft, node_uid: node.uid };
      tx.emit(AgentStreams.agent(auth.org_id, id), 'AgentCreated', { agent, by: auth.principal.id, at: tx.now }, 'no_stream');
      claim(id);
      counted(id);
      return presentAgent(agent, this.store.read, tx.now);
    });
  }

  list(auth: AuthContext, status: string | undefined, includeArchived: boolean, limit: number, offset: number) {
    const now = this.clock.now();
    if (auth.bound_agent_id !== null) {
      const own = this.store.read.agent(auth.org_id, auth.bound_agent_id);
      const items = own && (status ? own.status === status : includeArchived || own.status !== 'archived') ? [own] : [];
      return paginated(items.slice(offset, offset + limit).map((a) => presentAgent(a, this.store.read, now)), limit, offset, false);
    }
    const rows = this.store.read.agents(auth.org_id, { status, includeArchived, limit: limit + 1, offset });
    return paginated(rows.slice(0, limit).map((a) => presentAgent(a, this.store.read, now)), limit, offset, rows.length > limit);
  }

  get(auth: AuthContext, id: string) {
    return presentAgent(this.store.agent(auth, id), this.store.read, this.clock.now());
  }

  templates() {
    return AGENT_TEMPLATES;
  }

  /** Refreshes the Agent node from the record (recreated when it was tombstoned or purged, REFERENCE §16.10). */
  private async syncNode(tx: GraphTx, a: AgentRecord, reason: string): Promise<AgentRecord> {
    const n = await tx.node(a.node_uid);
    if (!n || n.tombstone_at !== null) {
      const node = createNode(tx, { label: a.name, props: this.agentNodeProps(a) }, { forcedType: 'Agent' });
      return { ...a, node_uid: node.uid };
    }
    const props = { ...(n.props as unknown as Record<string, unknown>), ...this.agentNodeProps(a) };
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideMirrorVersion(n, props, tx.now, a.name), reason));
    return a;
  }

  async update(auth: AuthContext, rid: string, id: string, input: AgentInput) {
    // the body is refused before the agent is looked for (REFERENCE §16.1); its own model may be named again
    const known = auth.bound_agent_id === null ? this.store.read.agent(auth.org_id, id) : null;
    assertAgentFields(input, this.context(auth.org_id, id), { create: false, keepModel: known?.model });
    const before = this.store.agent(auth, id);
    const cancelled: string[] = [];
    const out = await this.uow.run(commandContext(auth, rid), async (tx) => {
      await this.assertScope(tx, input);
      const renamed = input.name !== undefined && agentNameKey(input.name) !== agentNameKey(before.name);
      const claim = renamed ? await this.nameLock(tx, input.name) : null;
      const decided = decideUpdateAgent(before, input, this.context(auth.org_id, id), tx.now);
      if (!decided.changed.length) return presentAgent(before, this.store.read, tx.now);
      claim?.(id);
      const agent = await this.syncNode(tx, decided.agent, 'agent updated');
      const stream = AgentStreams.agent(auth.org_id, id);
      for (const move of decided.moves) {
        const type = move === 'updated' ? 'AgentUpdated' : move === 'paused' ? 'AgentPaused' : 'AgentResumed';
        tx.emit(stream, type, { agent, changed: decided.changed, by: auth.principal.id, at: tx.now });
      }
      if (decided.moves.includes('paused'))
        for (const s of this.store.read.openSessions(auth.org_id, id)) {
          const c = await stageRunCancel(tx, s, 'agent_paused', this.approvals);
          if (c) cancelled.push(c.run_id);
        }
      return presentAgent(agent, this.store.read, tx.now);
    });
    this.control.abort(cancelled);
    return this.get(auth, out.id);
  }

  async archive(auth: AuthContext, rid: string, id: string) {
    const before = this.store.agent(auth, id);
    const decided = decideArchiveAgent(before, this.clock.now());
    if (!decided) return this.get(auth, id);
    const cancelled: string[] = [];
    const schedules = await this.uow.run(commandContext(auth, rid), async (tx) => {
      const archived = decideArchiveAgent(this.store.agent(auth, id), tx.now);
      if (!archived) return [];
      const agent = await this.syncNode(tx, archived, 'agent archived');
      tx.emit(AgentStreams.agent(auth.org_id, id), 'AgentArchived', { agent, by: auth.principal.id, at: tx.now });
      for (const s of this.store.read.openSessions(auth.org_id, id)) {
        const c = await stageRunCancel(tx, s, 'agent_archived', this.approvals);
        if (c) cancelled.push(c.run_id);
        tx.emit(AgentStreams.session(auth.org_id, s.id), 'AgentSessionArchived', { org_id: auth.org_id, agent_id: id, session_id: s.id, run_id: null, at: tx.now, by: auth.principal.id });
        await this.endSessionNode(tx, s.node_uid);
      }
      // an archived agent's schedules are deleted (REFERENCE §16.3)
      const live = this.store.read.schedules(auth.org_id, { agent_id: id, limit: 1_000_000, offset: 0 });
      for (const sc of live)
        tx.emit(AgentStreams.schedule(auth.org_id, sc.id), 'AgentScheduleDeleted', { org_id: auth.org_id, agent_id: id, schedule_id: sc.id, reason: 'agent_archived', by: auth.principal.id, at: tx.now });
      return live.map((sc) => sc.id);
    });
    this.control.abort(cancelled);
    for (const sid of schedules) await this.timers.remove(auth.org_id, sid);
    await this.revokeBoundKeys(auth, rid, id);
    return this.get(auth, id);
  }

  private async endSessionNode(tx: GraphTx, uid: string): Promise<void> {
    const n = await tx.node(uid);
    if (!n || n.tombstone_at !== null) return;
    const props = { ...(n.props as unknown as Record<string, unknown>), ended_at: tx.now };
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideMirrorVersion(n, props, tx.now), 'session archived'));
  }

  /** Archiving an agent revokes the keys bound to it (REFERENCE §16.13); they live in the accounts' unit of work. */
  private async revokeBoundKeys(auth: AuthContext, rid: string, id: string): Promise<void> {
    const keys = this.accounts.keys(auth.org_id, 1_000_000, 0).filter((k) => k.agent_id === id && k.revoked_at === null);
    if (!keys.length) return;
    await this.accountsUow.run(commandContext(auth, rid), async (tx) => {
      for (const k of keys) tx.emit(Streams.apiKey(k.key_id), 'ApiKeyRevoked', { key_id: k.key_id, org_id: k.org_id, revoked_by: auth.principal.id, at: tx.now, reason: 'agent_archived' }, k.revision);
    });
  }

  /** Live Articles written with this agent's id, newest first. */
  async articles(auth: AuthContext, id: string, limit: number, offset: number) {
    this.store.agent(auth, id);
    const page = await this.graph.listNodes(auth.org_id, { node_types: ['Article'], agent_id: id }, { limit, offset }, 'created_desc');
    return paginated(page.items, limit, offset, page.has_more);
  }

  work(auth: AuthContext, id: string) {
    const a = this.store.agent(auth, id);
    const active = this.store.read.activeSessions(auth.org_id, a.id);
    const inputs = this.store.read
      .openSessions(auth.org_id, a.id)
      .filter((s) => s.pending_input !== null)
      .map((s) => ({ session_id: s.id, request_id: s.pending_input!.request_id, prompt: s.pending_input!.prompt, expires_at: iso(s.pending_input!.expires_at) }));
    const now = this.clock.now();
    const upcoming = this.store.read
      .schedules(auth.org_id, { agent_id: a.id, limit: 1_000_000, offset: 0 })
      .map((s) => ({ schedule_id: s.id, name: s.name, at: ScheduleTimers.nextRunAt(s, now) }))
      .filter((u): u is { schedule_id: string; name: string; at: number } => u.at !== null && u.at <= now + UPCOMING_S)
      .sort((x, y) => x.at - y.at)
      .map((u) => ({ schedule_id: u.schedule_id, name: u.name, next_run_at: iso(u.at) }));
    return { agent_id: a.id, active_sessions: active.length, pending_decisions: this.approvals.pendingOfAgent(auth.org_id, a.id).map(presentApproval), pending_inputs: inputs, upcoming_schedules: upcoming };
  }

  /** REFERENCE §16.5: the §15.10 resolution of one of this agent's approvals. */
  async resolveDecision(auth: AuthContext, rid: string, id: string, body: Record<string, unknown>) {
    // the body is refused before the agent is looked for (REFERENCE §16.1)
    const decisionId = body.decision_id ?? body.approval_id;
    if (typeof decisionId !== 'string' || !decisionId) throw Errors.missingField('decision_id');
    const input = readResolveInput(body);
    const a = this.store.agent(auth, id);
    const mine = (x: { agent_id: string }) => x.agent_id === a.id;
    const found = this.approvals.approval(auth.org_id, decisionId);
    if (!found || !mine(found)) throw Errors.notFound(`decision ${decisionId} not found`, { field: 'decision_id', uid: decisionId });
    return presentApproval(await this.approvals.resolve(commandContext(auth, rid), decisionId, input, { kind: auth.principal.kind, id: auth.principal.id }, mine));
  }
}
