import { BRIEF_STREAM_PREFIXES } from '@strata/domain/briefs';
import { GOVERNANCE_STREAM_PREFIXES } from '@strata/domain/governance';
import { HEALTH_BACKFILL_PASS, MirroredProjectionDefinition } from '../registry/projection-definition';
import { KnowledgeHealthProjection } from './knowledge-health.projection';

/** Fed only by its own ordered pass: the graph, the approval deadline setting, brief versions. */
export const KNOWLEDGE_HEALTH_PROJECTION: MirroredProjectionDefinition = {
  name: 'knowledge_health',
  servers: 'mirror',
  streams: [],
  backfill: { pass: HEALTH_BACKFILL_PASS, streams: ['node-', 'edge-', 'graph-', ...GOVERNANCE_STREAM_PREFIXES, ...BRIEF_STREAM_PREFIXES] },
  create: (db) => new KnowledgeHealthProjection(db),
};
