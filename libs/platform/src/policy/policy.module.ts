import { Inject, Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { AuditReadModel } from '@strata/projections/governance/audit-read-model';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { EmbeddedStorage } from '../storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../storage/storage.tokens';
import { ScopeModule } from '../scope/scope.module';
import { ProvenanceService } from '../scope/provenance.service';
import { UNIT_OF_WORK, UnitOfWork } from '../unit-of-work/unit-of-work.port';
import { KnownRoutes, registerPolicyRequestContext } from './http-request';
import { PolicyGate } from './policy-gate';
import { PolicyService } from './policy.service';

/**
 * Structured policies (REFERENCE §13.6): the evaluation service any area or lib may call (tool
 * calls), and the gate on the unit of work that applies them to every governed HTTP write.
 */
@Module({
  imports: [ScopeModule],
  providers: [
    PolicyService,
    {
      provide: AuditReadModel,
      // the audit projection: in the projections database (embedded), or this replica's mirror (servers)
      inject: [EMBEDDED_STORAGE, { token: AccountsMirror, optional: true }],
      useFactory: (e: EmbeddedStorage | null, m: AccountsMirror | null) => (e ? new AuditReadModel(e.projections) : m!.auditReadModel),
    },
    {
      provide: KnownRoutes,
      inject: [{ token: HttpAdapterHost, optional: true }],
      useFactory: (http: HttpAdapterHost | null) => {
        const routes = new KnownRoutes();
        // an application context (the CLI) has no HTTP server: nothing to govern there
        if (http?.httpAdapter) registerPolicyRequestContext(http.httpAdapter.getInstance(), routes);
        return routes;
      },
    },
  ],
  exports: [PolicyService, KnownRoutes, AuditReadModel],
})
export class PolicyModule {
  constructor(@Inject(UNIT_OF_WORK) uow: UnitOfWork, policies: PolicyService, governance: GovernanceReadModel, provenance: ProvenanceService, _routes: KnownRoutes) {
    // in the policy stage, after the Space rule and the Project write rule: access errors never produce a decision
    const gate = new PolicyGate(policies, governance, provenance);
    uow.addCommitCheck(gate.commit, 'policy');
    // after the Space rule's: a caller that may not write a node hears that, not a decision
    uow.addGuardCheck(gate.guard, 'policy');
  }
}
