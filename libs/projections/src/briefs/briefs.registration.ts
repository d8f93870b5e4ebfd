import { BRIEF_STREAM_PREFIXES } from '@strata/domain/briefs';
import type { MirroredProjectionDefinition } from '../registry/projection-definition';
import { BriefsProjection } from './briefs.projection';

export const BRIEFS_PROJECTION: MirroredProjectionDefinition = { name: 'briefs', servers: 'mirror', streams: BRIEF_STREAM_PREFIXES, create: (db) => new BriefsProjection(db) };
