import { Module } from '@nestjs/common';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { AgentAccessGuard } from './agent-access.guard';
import { AgentsStore } from './agents-store';
import { AgentHandlers } from './agents/agent.handlers';
import { AgentsController } from './agents/agents.controller';
import { RunControl } from './runtime/run-control';
import { AgentRunJob } from './runtime/agent-run.job';
import { AgentRuns } from './runtime/agent-runs';
import { GraphTools } from './runtime/graph-tools';
import { RunWaits } from './runtime/run-waits';
import { SessionHandlers } from './sessions/session.handlers';
import { SessionsController } from './sessions/sessions.controller';
import { SessionStream } from './sessions/session-stream';
import { LOG_SUBSCRIPTIONS_PROVIDER } from '@strata/live';
import { McpApprovalsModule } from '@strata/mcp/approvals';

/** Managed agents (REFERENCE §16, §17): agents, sessions, the runtime that runs them. */
@Module({
  imports: [ScopeModule, McpApprovalsModule],
  controllers: [AgentsController, SessionsController],
  providers: [AgentsStore, AgentAccessGuard, RunControl, RunWaits, GraphTools, AgentRunJob, AgentRuns, AgentHandlers, SessionHandlers, SessionStream, LOG_SUBSCRIPTIONS_PROVIDER],
})
export class AgentsModule {}
