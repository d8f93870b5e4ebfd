import { Inject, Module } from '@nestjs/common';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import { EmbeddedStorage } from '../storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../storage/storage.tokens';
import { NodeAccessService } from './node-access.service';
import { ProvenanceService } from './provenance.service';
import { ReadScopeService } from './read-scope';
import { SpaceAccessService } from './space-access.service';
import { SpaceWriteRule } from './space-write-rule';
import { ProjectWriteRule } from './project-write-rule';
import { ToolGrantService } from './tool-grants.service';
import { KnownAgents } from './known-agents';
import { UNIT_OF_WORK, UnitOfWork } from '../unit-of-work/unit-of-work.port';

/**
 * What a Space- or Project-scoped caller may see, and where a node came from: one set of
 * services for every area that reads the graph on a caller's behalf. `NodeAccessService`
 * answers "may this principal read or write this node"; `ToolGrantService` "may this agent
 * invoke this tool".
 */
@Module({
  providers: [
    {
      provide: GovernanceReadModel,
      // the governance projection: in the projections database (embedded), or this replica's mirror (servers)
      inject: [EMBEDDED_STORAGE, { token: AccountsMirror, optional: true }],
      useFactory: (e: EmbeddedStorage | null, m: AccountsMirror | null) => (e ? new GovernanceReadModel(e.projections) : m!.governanceReadModel),
    },
    {
      provide: BriefsReadModel,
      // Project grants (§12.8) bound an agent's scope: in the projections database (embedded), or this replica's mirror (servers)
      inject: [EMBEDDED_STORAGE, { token: AccountsMirror, optional: true }],
      useFactory: (e: EmbeddedStorage | null, m: AccountsMirror | null) => (e ? new BriefsReadModel(e.projections) : m!.briefsReadModel),
    },
    ProvenanceService,
    SpaceAccessService,
    ReadScopeService,
    NodeAccessService,
    ToolGrantService,
    KnownAgents,
  ],
  exports: [BriefsReadModel, ProvenanceService, ReadScopeService, SpaceAccessService, NodeAccessService, ToolGrantService, GovernanceReadModel, KnownAgents],
})
export class ScopeModule {
  constructor(@Inject(UNIT_OF_WORK) uow: UnitOfWork, spaces: SpaceAccessService, provenance: ProvenanceService) {
    // the Space rule on writes belongs to the unit of work, not to each route: no write path can forget it
    const rule = new SpaceWriteRule(spaces);
    uow.addOpenStep(rule.open);
    uow.addCommitCheck(rule.commit);
    uow.addGuardCheck(rule.guard);
    uow.addCommitCheck(new ProjectWriteRule(spaces, provenance).commit);
  }
}
