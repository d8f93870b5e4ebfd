import { GRAPH_BACKFILL_PASS, MirroredProjectionDefinition } from '../registry/projection-definition';
import { OntologyProjection } from './ontology.projection';

export const ONTOLOGY_PROJECTION: MirroredProjectionDefinition = {
  name: 'ontology',
  servers: 'mirror',
  streams: ['ontschema-', 'ontproposal-'],
  // the object index follows node events and the graph stream's purge and clear markers
  backfill: { pass: GRAPH_BACKFILL_PASS, streams: ['node-', 'graph-'] },
  create: (db) => new OntologyProjection(db),
};
