import { Inject, Injectable, Optional } from '@nestjs/common';
import { AgentErrors, AgentRecord, AgentStreams, PlanClaimLimit, RunRecord, SessionRecord } from '@strata/domain/agents';
import type { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { Errors } from '@strata/domain/errors';
import type { AuthContext } from '@strata/auth/auth-context';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { MirrorCatchUp } from '@strata/projections/accounts/mirror-catch-up';
import { AgentsReadModel } from '@strata/projections/agents/agents-read-model';
import type { EventStore, ExpectedRevision } from '@strata/event-store/event-store.port';

/**
 * The managed agents' read model of this process: the one projection, in the projections
 * database (embedded default) or in this replica's log mirror (servers mode), fed from the
 * same events.
 */
@Injectable()
export class AgentsStore {
  readonly read: AgentsReadModel;
  private readonly mirror: MirrorCatchUp;
  /** servers mode: the shared log, read for the revision a conditional append expects */
  private readonly log: EventStore | null;
  /** the log this process appends to, either mode: a run job holds its session stream's revision */
  private readonly anyLog: EventStore | null;

  constructor(
    @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
    @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null,
    @Optional() @Inject(SERVER_STORAGE) server: ServerStores | null,
  ) {
    this.mirror = new MirrorCatchUp(storage ? null : mirror, server?.events ?? null, 'the agents read model');
    this.read = storage ? new AgentsReadModel(storage.projections) : mirror!.agentsReadModel;
    this.log = storage ? null : (server?.events ?? null);
    this.anyLog = storage?.events ?? server?.events ?? null;
  }

  /**
   * The stream's revision now (-1: none), with this process's read model caught up to at least
   * it, in both storage modes: what a run job holds its session stream at, so that its appends
   * fail once another runner (its lease lapsed) appended to the session meanwhile.
   */
  async revisionToHold(stream: string): Promise<number> {
    const revision = this.anyLog ? await this.anyLog.streamRevision(stream) : -1;
    await this.catchUp();
    return revision;
  }

  /**
   * Whether writes may be decided concurrently on this read model (servers mode: each
   * replica's mirror). The embedded default decides writes one after another.
   */
  get concurrentDeciders(): boolean {
    return this.log !== null;
  }

  /**
   * The revision an append to `stream` must expect so that, of two replicas deciding the same
   * thing on their own mirrors, one commits and the other's append is refused (the unit of work
   * then decides again on a mirror at the log's head, where the first's event shows). Read
   * before deciding, with the mirror caught up to at least that revision. Embedded: `any` (one
   * decider, nothing to race).
   */
  async expectedRevision(stream: string): Promise<ExpectedRevision> {
    if (!this.log) return 'any';
    const revision = await this.log.streamRevision(stream);
    await this.catchUp();
    return revision < 0 ? 'no_stream' : revision;
  }

  /**
   * Servers mode: a plan limit's count (REFERENCE §17) decided across replicas. Called in the
   * unit of work before counting: reads the limit's claim stream revision with the mirror caught
   * up to it, so the count includes every write claimed before; the returned function stages
   * the claim (with the counted write, in the same append) expecting that revision. Of two
   * replicas counting at once, one commits; the other's append is refused and the unit of work
   * decides again at the log's head, where the first's write is counted. Embedded: one decider,
   * nothing to claim.
   */
  async planClaim(tx: GraphTx, limit: PlanClaimLimit): Promise<(refId: string) => void> {
    if (!this.log) return () => undefined;
    const stream = AgentStreams.plan(tx.org, limit);
    const expected = await this.expectedRevision(stream);
    return (refId) => tx.emit(stream, 'AgentPlanClaimed', { org_id: tx.org, limit, ref_id: refId, at: tx.now }, expected);
  }

  /** Kept for the handlers' order of checks: the read model is there in both storage modes. */
  assertAvailable(): void {
    void this.read;
  }

  /**
   * Servers mode: waits until this replica's mirror shows the log as it is now. A run job is
   * claimed from the shared queue by any replica, possibly before that replica's mirror has
   * the events its enqueuer wrote; deciding on them first would find no run. Embedded: no-op.
   */
  catchUp(): Promise<void> {
    return this.mirror.catchUp();
  }

  /** Resolves once this process's read model has applied the log up to `position` (at once on the embedded default). */
  shows(position: number): Promise<void> {
    return this.mirror.shows(position);
  }

  /**
   * The organization's agent, archived ones included; 404 for an unknown id, another
   * organization's, and (to a key bound to an agent) any other agent.
   */
  agent(auth: AuthContext, id: string): AgentRecord {
    if (auth.bound_agent_id !== null && auth.bound_agent_id !== id) throw AgentErrors.notFound(id);
    const a = this.read.agent(auth.org_id, id);
    if (!a) throw AgentErrors.notFound(id);
    return a;
  }

  /** The organization's session; 404 also for a session of another agent than a bound key's. */
  session(auth: AuthContext, id: string): SessionRecord {
    const s = this.read.session(auth.org_id, id);
    if (!s || (auth.bound_agent_id !== null && auth.bound_agent_id !== s.agent_id)) throw Errors.notFound(`session ${id} not found`, { field: 'sid', id });
    return s;
  }

  run(org: string, id: string | null): RunRecord | null {
    return id === null ? null : this.read.run(org, id);
  }
}
