import { EDGE_TYPES } from '@strata/domain/catalogue';
import { CLASSIFICATIONS } from '@strata/domain/governance/classification';
import { LAYERS, PRIVACY_LEVELS } from '@strata/domain/records';
import { MAX_QUERY_TERMS } from '@strata/text-index/analysis/text-analysis';

/**
 * Request and response shapes of the graph routes a client starts with (create and read a
 * node, search). Their controllers read raw bodies through the domain validators, so Nest has
 * nothing to describe; without these the typed client could not send a body to them.
 * Written in the interface spec's field names; unknown fields stay allowed (additive evolution).
 */

/** What node and edge records both carry: typed props, attribution, version and lifecycle times. */
const versionedRecordFields = {
  props: { type: 'object', additionalProperties: true, description: 'typed props, tagged by _type' },
  agent_id: { type: ['string', 'null'] },
  version: { type: 'integer' },
  created_at: { type: 'number', description: 'Unix seconds' },
  updated_at: { type: 'number', description: 'Unix seconds' },
  tombstone_at: { type: ['number', 'null'] },
};

const nodeRecord = {
  type: 'object',
  required: ['uid', 'label', 'node_type', 'layer', 'props', 'version', 'created_at', 'updated_at'],
  properties: {
    uid: { type: 'string' },
    label: { type: 'string' },
    summary: { type: ['string', 'null'] },
    node_type: { type: 'string' },
    layer: { type: 'string', enum: [...LAYERS] },
    confidence: { type: 'number' },
    salience: { type: 'number' },
    privacy_level: { type: 'string', enum: [...PRIVACY_LEVELS] },
    classification: { type: 'string', enum: [...CLASSIFICATIONS], description: 'the Space classification (REFERENCE §13.1)' },
    ...versionedRecordFields,
    tombstone_reason: { type: ['string', 'null'] },
    tombstone_by: { type: ['string', 'null'] },
  },
  additionalProperties: true,
};

const createNode = {
  type: 'object',
  required: ['label'],
  properties: {
    label: { type: 'string' },
    node_type: { type: 'string', description: 'inferred from props._type when omitted' },
    summary: { type: 'string' },
    layer: { type: 'string' },
    props: { type: 'object', additionalProperties: true, description: 'typed props, tagged by _type' },
    agent_id: { type: 'string', description: 'attribution only; never grants authority' },
  },
  additionalProperties: true,
};

const searchRequest = {
  type: 'object',
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      maxLength: 10_000,
      description: `free text: its letter and digit runs are the terms, OR'ed; the first ${MAX_QUERY_TERMS} distinct terms are searched and later ones ignored, so that one request cannot make the index read thousands of lists`,
    },
    node_type: { type: 'string' },
    node_types: { type: 'array', items: { type: 'string' } },
    layer: { type: 'string' },
    limit: { type: 'integer', default: 100 },
    offset: { type: 'integer', default: 0 },
    min_score: { type: 'number' },
    include_edges: { type: 'boolean', default: false },
    include_chunks: { type: 'boolean', default: false },
    chunk_limit: { type: 'integer', default: 10 },
    project_uid: { type: 'string' },
  },
  additionalProperties: true,
};

const searchResult = {
  type: 'object',
  required: ['uid', 'label', 'node_type', 'score'],
  properties: {
    uid: { type: 'string' },
    label: { type: 'string' },
    summary: { type: ['string', 'null'] },
    node_type: { type: 'string' },
    layer: { type: 'string' },
    score: { type: 'number' },
  },
};

const searchResponse = {
  description: 'the results; with include_edges or include_chunks, {results, edges, chunks}',
  anyOf: [
    { type: 'array', items: { $ref: '#/components/schemas/SearchResult' } },
    {
      type: 'object',
      required: ['results', 'edges', 'chunks'],
      properties: {
        results: { type: 'array', items: { $ref: '#/components/schemas/SearchResult' } },
        edges: { type: 'array', items: { type: 'object', additionalProperties: true } },
        chunks: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
  ],
};

/** The edge and node write shapes take their type names from the catalogue. */
const createEdge = () => ({
  type: 'object',
  required: ['from_uid', 'to_uid'],
  properties: {
    from_uid: { type: 'string' },
    to_uid: { type: 'string' },
    edge_type: { type: 'string', description: 'inferred from props._type when omitted', examples: EDGE_TYPES.slice(0, 5).map((t) => t.name) },
    weight: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
    confidence: { type: 'number', minimum: 0, maximum: 1, default: 1 },
    props: { description: 'the edge type’s props (<EdgeType>EdgeProps), tagged by _type', anyOf: EDGE_TYPES.map((t) => ({ $ref: `#/components/schemas/${t.name}EdgeProps` })) },
    agent_id: { type: 'string', description: 'attribution only; never grants authority' },
  },
  additionalProperties: true,
});

const edgeRecord = {
  type: 'object',
  required: ['uid', 'edge_type', 'from_uid', 'to_uid', 'version'],
  properties: {
    uid: { type: 'string' },
    edge_type: { type: 'string' },
    from_uid: { type: 'string' },
    to_uid: { type: 'string' },
    layer: { type: 'string', enum: [...LAYERS] },
    weight: { type: 'number' },
    confidence: { type: 'number' },
    ...versionedRecordFields,
    tombstone_reason: { type: ['string', 'null'] },
  },
  additionalProperties: true,
};

const updateNode = {
  type: 'object',
  properties: {
    label: { type: 'string', minLength: 1, maxLength: 1000 },
    summary: { type: 'string', maxLength: 10000 },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    salience: { type: 'number', minimum: 0, maximum: 1 },
    privacy_level: { type: 'string', enum: ['private', 'shared', 'public'] },
    props: { type: 'object', additionalProperties: true, description: 'partial props, shallow-merged (§2.6)' },
    reason: { type: 'string' },
    agent_id: { type: 'string' },
    expected_version: { type: 'integer', description: '409 version_conflict when the node is at another version' },
  },
  additionalProperties: true,
};

const updateEdge = {
  type: 'object',
  properties: {
    weight: { type: 'number', minimum: 0, maximum: 1 },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    props: { type: 'object', additionalProperties: true, description: 'partial props, shallow-merged' },
    reason: { type: 'string' },
    expected_version: { type: 'integer' },
  },
  additionalProperties: true,
};

const page = (item: string) => ({
  type: 'object',
  required: ['items', 'has_more', 'limit', 'offset'],
  properties: { items: { type: 'array', items: { $ref: `#/components/schemas/${item}` } }, has_more: { type: 'boolean' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
});

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Adds the shapes to the document where the operation does not describe them already. */
export function addGraphShapes(doc: { paths: Record<string, any>; components?: { schemas?: Record<string, unknown> } }): void {
  const schemas = (doc.components ??= {}).schemas ??= {};
  Object.assign(schemas, {
    NodeRecord: nodeRecord,
    CreateNodeRequest: createNode,
    UpdateNodeRequest: updateNode,
    NodePage: page('NodeRecord'),
    EdgeRecord: edgeRecord,
    CreateEdgeRequest: createEdge(),
    UpdateEdgeRequest: updateEdge,
    SearchRequest: searchRequest,
    SearchResult: searchResult,
  });
  const describe = (path: string, method: string, body: unknown, status: string, response: unknown) => {
    const op = doc.paths[path]?.[method];
    if (!op) return;
    if (body && !op.requestBody) op.requestBody = { required: true, content: json(body) };
    const res = (op.responses ??= {});
    for (const code of Object.keys(res)) if (/^2/.test(code) && code !== status && !res[code].content) delete res[code];
    res[status] = { description: res[status]?.description || 'OK', ...res[status], content: res[status]?.content ?? json(response) };
  };
  describe('/node', 'post', ref('CreateNodeRequest'), '201', ref('NodeRecord'));
  describe('/node/{uid}', 'get', null, '200', ref('NodeRecord'));
  describe('/search', 'post', ref('SearchRequest'), '200', searchResponse);
  describe('/node/{uid}', 'patch', ref('UpdateNodeRequest'), '200', ref('NodeRecord'));
  describe('/node/{uid}', 'delete', null, '200', {
    type: 'object',
    required: ['uid', 'tombstoned', 'version'],
    properties: { uid: { type: 'string' }, tombstoned: { type: 'boolean' }, version: { type: 'integer' }, edges_tombstoned: { type: 'integer' } },
  });
  describe('/node/{uid}/history/{version}', 'get', null, '200', ref('NodeRecord'));
  describe('/nodes', 'get', null, '200', ref('NodePage'));
  describe('/agent/{agent_id}/nodes', 'get', null, '200', ref('NodePage'));
  describe('/edge', 'post', ref('CreateEdgeRequest'), '201', ref('EdgeRecord'));
  describe('/link', 'post', ref('CreateEdgeRequest'), '201', ref('EdgeRecord'));
  describe('/edge/{uid}', 'patch', ref('UpdateEdgeRequest'), '200', ref('EdgeRecord'));
  describe('/edges', 'get', null, '200', { type: 'array', items: ref('EdgeRecord') });
  describe('/edge/between', 'get', null, '200', { type: 'array', items: ref('EdgeRecord') });
}
