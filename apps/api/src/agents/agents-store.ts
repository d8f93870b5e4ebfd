import { Inject, Injectable } from '@nestjs/common';
import { AgentErrors, AgentRecord, RunRecord, SessionRecord } from '@strata/domain/agents';
import { DomainError, Errors } from '@strata/domain/errors';
import type { AuthContext } from '@strata/auth/auth-context';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { AgentsReadModel } from '@strata/projections/agents/agents-read-model';

/**
 * The managed agents' read model of this process. The projection runs on the embedded
 * default; in servers mode the area answers 501 `not_implemented` until its MongoDB
 * projection exists, rather than deciding against a read model that is not there.
 */
@Injectable()
export class AgentsStore {
  private readonly model: AgentsReadModel | null;

  constructor(@Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null) {
    this.model = storage ? new AgentsReadModel(storage.projections) : null;
  }

  get read(): AgentsReadModel {
    if (!this.model) throw new DomainError(501, 'not_implemented', 'managed agents are not available in servers mode yet');
    return this.model;
  }

  /** false where the read model is missing (servers mode) */
  get available(): boolean {
    return this.model !== null;
  }

  /** 501 `not_implemented` where the read model is missing (servers mode), before anything is written. */
  assertAvailable(): void {
    void this.read;
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
