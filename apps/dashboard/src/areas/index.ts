import type { Area } from '../context.js';
import { activity } from './activity.js';
import { agentSchedules } from './agent-schedules.js';
import { agentPage, agents, sessionPage } from './agents.js';
import { briefingSchedulePage, briefingSchedules } from './briefing-schedules.js';
import { signIn, signUp } from './auth.js';
import { explore } from './explore.js';
import { governanceSettings, spaces } from './governance.js';
import { documentPage, ingest, jobPage, jobs } from './ingest.js';
import { keys } from './keys.js';
import { mcpConnections } from './mcp.js';
import { nodePage, paths } from './node.js';
import { organization } from './organization.js';
import { overview } from './overview.js';
import { audit, policies } from './policies.js';
import { projectPage, projects } from './projects.js';
import { proposals } from './proposals.js';
import { review } from './review.js';
import { health } from './health.js';

/**
 * Every area of the dashboard, in navigation order. A new area (briefs, agents, policies and
 * audit, Knowledge Health, MCP connections…) is one module under areas/ and one entry here.
 */
export const AREAS: Area[] = [
  signIn,
  signUp,
  overview,
  organization,
  keys,
  explore,
  paths,
  nodePage,
  ingest,
  jobs,
  jobPage,
  documentPage,
  projects,
  projectPage,
  briefingSchedules,
  briefingSchedulePage,
  agents,
  // before the agent page: /agents/:id would take these paths
  agentSchedules,
  activity,
  sessionPage,
  agentPage,
  mcpConnections,
  review,
  proposals,
  health,
  spaces,
  governanceSettings,
  policies,
  audit,
];
