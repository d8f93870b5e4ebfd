import type { MirroredProjectionDefinition } from '../registry/projection-definition';
import { AgentsProjection } from './agents.projection';

/**
 * `agent-` covers the agents and sessions and governance's `agent-tools-` (a prefix filter, so
 * nothing is read twice); the agents' credits are `CreditsConsumed` on the organization
 * stream, mirrored with the accounts.
 */
export const AGENTS_PROJECTION: MirroredProjectionDefinition = { name: 'agents', servers: 'mirror', streams: ['agent-'], create: (db) => new AgentsProjection(db) };
