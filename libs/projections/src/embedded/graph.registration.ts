import type { WorkerProjectionDefinition } from '../registry/projection-definition';
import { GraphProjection } from './graph.projection';
import { TextProjection } from './text.projection';

/** The graph read model; in servers mode the worker keeps it on MongoDB. */
export const GRAPH_PROJECTION: WorkerProjectionDefinition = { name: 'graph', servers: 'worker', create: (d) => new GraphProjection(d.graph) };

/** The full-text index of the graph; in servers mode the worker keeps it on Meilisearch. */
export const TEXT_PROJECTION: WorkerProjectionDefinition = { name: 'text', servers: 'worker', create: (d) => new TextProjection(d.text) };
