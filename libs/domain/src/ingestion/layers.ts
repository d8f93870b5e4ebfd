import { DomainError, Errors } from '../errors';
import { Layer } from '../records';
import { Body, readString } from '../validation';

/** Layers an ingestion request may name (REFERENCE §9.1). */
export const INGEST_LAYERS: readonly Layer[] = ['reality', 'epistemic', 'intent', 'action', 'memory', 'agent', 'ontology'];

export const CONTENT_TYPES = ['article', 'meeting_notes', 'report', 'journal'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export type IngestMode = 'chunk' | 'document' | 'session';

/** The node types each layer pass extracts (REFERENCE §9.1). */
export const LAYER_TYPES: Readonly<Record<Exclude<Layer, 'ontology'>, readonly string[]>> = {
  reality: ['Person', 'Organization', 'Nation', 'Event', 'Place', 'Concept', 'Entity', 'Observation'],
  epistemic: ['Claim', 'Evidence', 'Hypothesis', 'Assumption', 'Pattern', 'Analogy', 'Question'],
  intent: ['Goal', 'Decision', 'Constraint', 'Project'],
  action: ['Affordance', 'RiskAssessment'],
  memory: ['Preference', 'Summary'],
  agent: ['Task', 'Plan'],
};

/** The defaults of §9.1 by mode and content type. */
export function defaultLayers(mode: IngestMode, contentType: ContentType = 'article'): Layer[] {
  if (mode === 'chunk') return ['reality', 'epistemic', 'memory'];
  if (mode === 'session') return ['reality', 'epistemic', 'intent', 'action', 'memory'];
  switch (contentType) {
    case 'meeting_notes':
    case 'report':
      return ['reality', 'epistemic', 'intent', 'action'];
    case 'journal':
      return ['reality', 'epistemic', 'intent', 'memory'];
    default:
      return ['reality', 'epistemic'];
  }
}

export interface ResolvedLayers {
  layers: Layer[];
  /** the ontology schema the ontology pass uses, when it runs */
  ontology_schema_id: string | null;
}

/**
 * `layers`, `content_type` and `ontology_schema_id` of a request → the passes to run. An
 * explicit list replaces the defaults (and `content_type` is then ignored); a schema id on its
 * own adds the ontology pass; `ontology` without one takes the workspace's default active
 * schema (`activeSchemaId`, asked only then), and with none active the request is refused (409).
 */
export function resolveLayers(mode: IngestMode, body: Body, activeSchemaId: string | null | (() => string | null)): ResolvedLayers {
  const contentType = mode === 'document' ? readContentType(body) : undefined;
  const explicit = readLayerList(body);
  const schemaId = readString(body, 'ontology_schema_id', { trim: true, max: 128 }) ?? null;
  const layers = explicit ?? defaultLayers(mode, contentType);
  if (schemaId !== null && !layers.includes('ontology')) layers.push('ontology');
  if (!layers.includes('ontology')) return { layers, ontology_schema_id: null };
  const schema = schemaId ?? (typeof activeSchemaId === 'function' ? activeSchemaId() : activeSchemaId);
  if (schema === null) throw new DomainError(409, 'schema_not_active', 'the ontology pass needs an active ontology schema: none is active');
  return { layers, ontology_schema_id: schema };
}

export function readContentType(body: Body): ContentType {
  const v = readString(body, 'content_type', { trim: true });
  if (v === undefined) return 'article';
  if (!(CONTENT_TYPES as readonly string[]).includes(v)) throw Errors.invalidField('content_type', `content_type must be one of: ${CONTENT_TYPES.join(', ')}`, { allowed: [...CONTENT_TYPES] });
  return v as ContentType;
}

function readLayerList(body: Body): Layer[] | undefined {
  const v = body.layers;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length === 0) throw Errors.invalidField('layers', `layers must be a non-empty array of: ${INGEST_LAYERS.join(', ')}`);
  const out: Layer[] = [];
  v.forEach((l, i) => {
    if (typeof l !== 'string' || !INGEST_LAYERS.includes(l as Layer))
      throw Errors.invalidField(`layers[${i}]`, `layers[${i}] must be one of: ${INGEST_LAYERS.join(', ')}`, { allowed: [...INGEST_LAYERS] });
    if (!out.includes(l as Layer)) out.push(l as Layer);
  });
  return out;
}
