import { Module } from '@nestjs/common';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { AgentAccessGuard } from './agent-access.guard';
import { AgentsStore } from './agents-store';
import { AgentHandlers } from './agents/agent.handlers';
import { AgentsController } from './agents/agents.controller';
import { RunControl } from './runtime/run-control';

/** Managed agents (REFERENCE §16, §17): agents, sessions, the runtime that runs them. */
@Module({
  imports: [ScopeModule],
  controllers: [AgentsController],
  providers: [AgentsStore, AgentAccessGuard, RunControl, AgentHandlers],
})
export class AgentsModule {}
