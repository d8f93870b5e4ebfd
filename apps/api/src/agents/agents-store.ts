import { Inject, Injectable, Optional } from '@nestjs/common';
import { AgentErrors, AgentRecord, RunRecord, SessionRecord } from '@strata/domain/agents';
import { DomainError, Errors } from '@strata/domain/errors';
import type { AuthContext } from '@strata/auth/auth-context';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { AgentsReadModel } from '@strata/projections/agents/agents-read-model';

/** How long a run job claimed on this replica waits for its mirror to show the run. */
const CATCH_UP_MS = 10_000;

/**
 * The managed agents' read model of this process: the one projection, in the projections
 * database (embedded default) or in this replica's log mirror (servers mode), fed from the
 * same events.
 */
@Injectable()
export class AgentsStore {
  readonly read: AgentsReadModel;
  private readonly mirror: AccountsMirror | null;

  constructor(
    @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
    @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null,
    @Optional() @Inject(SERVER_STORAGE) private readonly server: ServerStores | null,
  ) {
    this.mirror = storage ? null : mirror;
    this.read = storage ? new AgentsReadModel(storage.projections) : mirror!.agentsReadModel;
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
  async catchUp(): Promise<void> {
    if (!this.mirror || !this.server) return;
    const head = await this.server.events.headPosition();
    if (!(await this.mirror.waitFor(head, CATCH_UP_MS))) throw new DomainError(503, 'unavailable', 'the agents read model is behind the log', { retry_after: 1 });
  }

  /** Resolves once this process's read model has applied the log up to `position` (at once on the embedded default). */
  async shows(position: number): Promise<void> {
    if (this.mirror) await this.mirror.waitFor(position, CATCH_UP_MS);
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
