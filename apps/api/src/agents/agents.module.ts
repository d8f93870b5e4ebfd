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
import { SessionDeltas } from './runtime/session-deltas';
import { SessionHistory } from './runtime/session-history';
import { RunDeadlines } from './runtime/run-deadlines';
import { SessionHandlers } from './sessions/session.handlers';
import { SessionsController } from './sessions/sessions.controller';
import { SessionStream } from './sessions/session-stream';
import { LOG_SUBSCRIPTIONS_PROVIDER } from '@strata/live';
import { ActivityController } from './activity/activity.controller';
import { ActivitySocket } from './activity/activity-socket';
import { ScheduleFiringJob } from './schedules/schedule-firing.job';
import { ScheduleHandlers } from './schedules/schedule.handlers';
import { SchedulesController } from './schedules/schedules.controller';
import { ScheduleTimers } from './schedules/schedule-timers';
import { McpApprovalsModule } from '@strata/mcp/approvals';

/**
 * Managed agents (REFERENCE §16, §17): agents, sessions, the runtime that runs them, schedules
 * and the activity feed. The controllers of the reserved segments (`schedules`, `activity`,
 * `sessions`) come before the agents' `/:id` routes: the router prefers a static segment
 * anyway, and the RouteTable's 405s follow the same order.
 */
@Module({
  imports: [ScopeModule, McpApprovalsModule],
  controllers: [SchedulesController, ActivityController, SessionsController, AgentsController],
  providers: [
    AgentsStore, AgentAccessGuard, RunControl, RunWaits, GraphTools, AgentRunJob, AgentRuns, SessionDeltas, SessionHistory, RunDeadlines, AgentHandlers, SessionHandlers, SessionStream, LOG_SUBSCRIPTIONS_PROVIDER,
    ScheduleTimers, ScheduleHandlers, ScheduleFiringJob, ActivitySocket,
  ],
})
export class AgentsModule {}
