import { nodePropsSchemas } from '../catalogue/openapi-schemas';
import { EndpointDef } from './action';
import { COGNITIVE_ENDPOINTS } from './endpoints';
import { TriggerDef } from './triggers';

type Schema = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The named response shapes of REFERENCE §4.0, shared by every cognitive route. Extra fields
 * (an action's extras) stay allowed.
 */
export function cognitiveResultSchemas(): Record<string, Schema> {
  const edge = {
    type: 'object',
    required: ['uid', 'edge_type', 'from_uid', 'to_uid'],
    properties: { uid: { type: 'string' }, edge_type: { type: 'string' }, from_uid: { type: 'string' }, to_uid: { type: 'string' } },
  };
  return {
    CognitiveEdgeRef: edge,
    CreateResult: {
      type: 'object',
      description: 'a node the call created, with the edges its triggers made (§4.0), plus the action’s extras',
      required: ['uid', 'action', 'node_type', 'layer', 'label', 'version', 'edges_created', 'edges'],
      properties: {
        uid: { type: 'string' },
        action: { type: 'string' },
        node_type: { type: 'string' },
        layer: { type: 'string' },
        label: { type: 'string' },
        version: { type: 'integer' },
        edges_created: { type: 'integer' },
        edges: { type: 'array', items: ref('CognitiveEdgeRef') },
        warnings: ref('CallWarnings'),
      },
      additionalProperties: true,
    },
    TransitionResult: {
      type: 'object',
      description: 'a node the call changed (§4.0): its new version, plus the action’s extras',
      required: ['uid', 'action', 'version'],
      properties: {
        uid: { type: 'string' },
        action: { type: 'string' },
        status: { type: 'string' },
        version: { type: 'integer' },
        edges_created: { type: 'integer' },
        edges: { type: 'array', items: ref('CognitiveEdgeRef') },
        warnings: ref('CallWarnings'),
      },
      additionalProperties: true,
    },
    CallWarnings: {
      type: 'array',
      description: 'top-level fields of the request the action did not use (§2.8); a bare-array answer carries them in the `strata-warnings` header',
      items: { type: 'object', required: ['field', 'reason'], properties: { field: { type: 'string' }, reason: { type: 'string' } } },
    },
  };
}

/**
 * A type's props as a cognitive call sends them: every field optional, since the action's
 * defaults ("x = label") fill in what is left out, and untagged.
 */
let propsSchemas: Record<string, object> | null = null;
function partialProps(typeName: string): Schema {
  propsSchemas ??= nodePropsSchemas();
  const { required: _required, ...rest } = propsSchemas[typeName] as Schema;
  return { ...rest, title: `${typeName}Props (partial)` };
}

/** A trigger field's JSON shape by its arity, with the host types it must name. */
function triggerSchema(d: TriggerDef): Schema {
  const one = { type: 'string', description: 'a node uid' };
  const many = { type: 'array', items: { type: 'string' } };
  const base: Schema = d.arity === 'one' ? { ...one } : d.arity === 'many' ? { ...many } : { anyOf: [one, many] };
  const notes = [`edge ${d.edge} (${d.dir === 'out' ? 'new node → named node' : 'named node → new node'})`];
  if (d.types?.length) notes.push(`must name a ${d.types.join(' or ')}`);
  base.description = notes.join('; ');
  return base;
}

/**
 * The request body of one cognitive route, derived from its endpoint definition and the
 * catalogue: `action` (the endpoint's actions), the §4.0 fields, the trigger fields of its
 * create actions, and `props` as the props schema of each node type those actions create.
 * Other actions' fields are described by the interface spec; they stay allowed.
 */
function requestSchema(endpoint: EndpointDef): Schema {
  const properties: Record<string, Schema> = {};
  const actions = Object.keys(endpoint.actions);
  if (!endpoint.single) properties.action = { type: 'string', enum: actions };
  properties.label = { type: 'string', minLength: 1, maxLength: 1000, description: 'the new node’s label (create actions)' };
  properties.summary = { type: 'string', maxLength: 10000 };
  properties.confidence = { type: 'number', minimum: 0, maximum: 1 };
  properties.salience = { type: 'number', minimum: 0, maximum: 1 };
  properties.privacy_level = { type: 'string', enum: ['private', 'shared', 'public'] };
  properties.agent_id = { type: 'string', maxLength: 128, description: 'attribution only; never grants authority' };
  const creates: { action: string; nodeType: string; labelRequired: boolean }[] = [];
  const triggerActions = new Map<string, { def: TriggerDef; actions: string[] }>();
  for (const [name, def] of Object.entries(endpoint.actions)) {
    if (!def.creates) continue;
    creates.push({ action: name, nodeType: def.creates.nodeType, labelRequired: def.creates.labelRequired });
    for (const t of def.creates.triggers) {
      const seen = triggerActions.get(t.field) ?? { def: t, actions: [] };
      seen.actions.push(name);
      triggerActions.set(t.field, seen);
    }
  }
  for (const [field, { def, actions: on }] of triggerActions) {
    const s = triggerSchema(def);
    properties[field] = { ...s, description: `${on.length === creates.length && on.length > 1 ? 'every create action' : on.join(', ')}: ${s.description}` };
    for (const alias of def.aliases ?? []) if (!properties[alias]) properties[alias] = { ...triggerSchema(def), deprecated: true, description: `alias of ${field}` };
  }
  const types = [...new Set(creates.map((c) => c.nodeType))];
  properties.props =
    types.length === 0
      ? { type: 'object', additionalProperties: true }
      : {
          description: `type-specific fields of the node the action creates, untagged (${creates.map((c) => `${c.action}: ${c.nodeType}`).join(', ')})`,
          ...(types.length === 1 ? partialProps(types[0]) : { anyOf: types.map(partialProps) }),
        };
  const schema: Schema = {
    type: 'object',
    properties,
    // flattened props (§2.8) and the fields of other actions go beside these
    additionalProperties: true,
  };
  if (!endpoint.single) schema.required = ['action'];
  else if (creates.every((c) => c.labelRequired) && creates.length) schema.required = ['label'];
  return schema;
}

/**
 * Request and response schemas of every cognitive route, keyed by path (`/agent/plan`):
 * derived from COGNITIVE_ENDPOINTS, so an action or trigger added there is documented too.
 * The trigger aliases the catalogue lists are added by `triggerAliasBodySchemas`.
 */
export function cognitiveRouteSchemas(): Record<string, { request: Schema; response: Schema; creates: boolean }> {
  const out: Record<string, { request: Schema; response: Schema; creates: boolean }> = {};
  for (const e of COGNITIVE_ENDPOINTS) {
    const creates = Object.values(e.actions).some((a) => a.creates);
    out[`/${e.path}`] = {
      request: requestSchema(e),
      response: {
        description: 'by action: CreateResult (201), TransitionResult, a NodeList (bare array of node records) or the action’s own shape (§4)',
        anyOf: [ref('CreateResult'), ref('TransitionResult'), { type: 'array', items: ref('NodeRecord') }, { type: 'object', additionalProperties: true }],
      },
      creates,
    };
  }
  return out;
}
