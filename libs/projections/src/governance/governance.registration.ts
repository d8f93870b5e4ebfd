import { GOVERNANCE_STREAM_PREFIXES } from '@strata/domain/governance';
import { GRAPH_BACKFILL_PASS, MirroredProjectionDefinition } from '../registry/projection-definition';
import { AuditProjection } from './audit.projection';
import { GovernanceProjection } from './governance.projection';

export const GOVERNANCE_PROJECTION: MirroredProjectionDefinition = {
  name: 'governance',
  servers: 'mirror',
  streams: GOVERNANCE_STREAM_PREFIXES,
  create: (db) => new GovernanceProjection(db),
};

/** Policy decisions and approval uses from governance streams; Approval and Execution records from node streams, the bulk of the log. */
export const AUDIT_PROJECTION: MirroredProjectionDefinition = {
  name: 'audit',
  servers: 'mirror',
  streams: GOVERNANCE_STREAM_PREFIXES,
  backfill: { pass: GRAPH_BACKFILL_PASS, streams: ['node-'] },
  create: (db) => new AuditProjection(db),
};
