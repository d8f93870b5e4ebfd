import type { MirroredProjectionDefinition } from '../registry/projection-definition';
import { ProjectSourcesProjection } from './project-sources.projection';

/** Its own ordered pass over the graph (node, edge and organization streams): Projects admit from all of them. */
export const PROJECT_SOURCES_BACKFILL_PASS = 'project_sources';

export const PROJECT_SOURCES_PROJECTION: MirroredProjectionDefinition = {
  name: 'project_sources',
  servers: 'mirror',
  streams: [],
  backfill: { pass: PROJECT_SOURCES_BACKFILL_PASS, streams: ['node-', 'edge-', 'graph-'] },
  create: (db) => new ProjectSourcesProjection(db),
};
