import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AgentRecord } from '@strata/domain/agents';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { AgentsReadModel } from '@strata/projections/agents/agents-read-model';
import type { EmbeddedStorage } from '../storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../storage/storage.tokens';

/**
 * The organization's known agents (REFERENCE §13.3): its managed agents plus every `agent_id` an
 * API key of the organization is or was bound to. The one answer for every grant route, so a
 * managed agent with no key of its own can still be granted Spaces, Projects and tools.
 */
@Injectable()
export class KnownAgents {
  /** managed agents: the embedded projections, or this replica's mirror */
  private readonly agents: AgentsReadModel | null;

  constructor(
    private readonly accounts: AccountsReadModel,
    @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
    @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null,
  ) {
    this.agents = storage ? new AgentsReadModel(storage.projections) : (mirror?.agentsReadModel ?? null);
  }

  isKnown(org: string, agentId: string): boolean {
    return this.accounts.agentKnownByKeys(org, agentId) || !!this.managed(org, agentId);
  }

  /** The organization's managed agent of that id (archived ones too); null for any other id. */
  managed(org: string, agentId: string): AgentRecord | null {
    return this.agents?.agent(org, agentId) ?? null;
  }

  /** A managed agent of the organization that was archived. */
  isArchivedManaged(org: string, agentId: string): boolean {
    return this.managed(org, agentId)?.status === 'archived';
  }
}
