import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { CognitiveHandler } from './shared/cognitive.command';
import { RealityCaptureController } from './reality-capture/reality-capture.controller';
import { RealitySeriesController } from './reality-series/reality-series.controller';
import { EpistemicArgumentController } from './epistemic-argument/epistemic-argument.controller';
import { EpistemicInquiryController } from './epistemic-inquiry/epistemic-inquiry.controller';
import { EpistemicStructureController } from './epistemic-structure/epistemic-structure.controller';
import { IntentCommitmentController } from './intent-commitment/intent-commitment.controller';
import { IntentDeliberationController } from './intent-deliberation/intent-deliberation.controller';
import { ActionProcedureController } from './action-procedure/action-procedure.controller';
import { ActionRiskController } from './action-risk/action-risk.controller';
import { ActionSkillController } from './action-skill/action-skill.controller';
import { MemorySessionController } from './memory-session/memory-session.controller';
import { MemoryDistillController } from './memory-distill/memory-distill.controller';
import { MemoryConfigController } from './memory-config/memory-config.controller';
import { AgentPlanController } from './agent-plan/agent-plan.controller';
import { AgentGovernanceController } from './agent-governance/agent-governance.controller';
import { AgentExecutionController } from './agent-execution/agent-execution.controller';

/**
 * The cognitive write routes (REFERENCE §4.1–§4.17, without /reality/entity): one thin
 * controller per path, one generic handler driven by each endpoint's action table.
 */
@Module({
  imports: [CqrsModule, ScopeModule],
  controllers: [
    RealityCaptureController,
    RealitySeriesController,
    EpistemicArgumentController,
    EpistemicInquiryController,
    EpistemicStructureController,
    IntentCommitmentController,
    IntentDeliberationController,
    ActionProcedureController,
    ActionRiskController,
    ActionSkillController,
    MemorySessionController,
    MemoryDistillController,
    MemoryConfigController,
    AgentPlanController,
    AgentGovernanceController,
    AgentExecutionController,
  ],
  providers: [CognitiveHandler],
})
export class CognitiveModule {}
