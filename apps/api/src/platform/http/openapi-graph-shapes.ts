/**
 * Request and response shapes of the graph routes a client starts with (create and read a
 * node, search). Their controllers read raw bodies through the domain validators, so Nest has
 * nothing to describe; without these the typed client could not send a body to them.
 * Written in the interface spec's field names; unknown fields stay allowed (additive evolution).
 */
const nodeRecord = {
  type: 'object',
  required: ['uid', 'label', 'node_type', 'layer', 'props', 'version', 'created_at', 'updated_at'],
  properties: {
    uid: { type: 'string' },
    label: { type: 'string' },
    summary: { type: ['string', 'null'] },
    node_type: { type: 'string' },
    layer: { type: 'string' },
    confidence: { type: 'number' },
    salience: { type: 'number' },
    privacy_level: { type: 'string' },
    props: { type: 'object', additionalProperties: true, description: 'typed props, tagged by _type' },
    agent_id: { type: ['string', 'null'] },
    version: { type: 'integer' },
    created_at: { type: 'number', description: 'Unix seconds' },
    updated_at: { type: 'number', description: 'Unix seconds' },
    tombstone_at: { type: ['number', 'null'] },
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
    query: { type: 'string' },
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

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Adds the shapes to the document where the operation does not describe them already. */
export function addGraphShapes(doc: { paths: Record<string, any>; components?: { schemas?: Record<string, unknown> } }): void {
  const schemas = (doc.components ??= {}).schemas ??= {};
  Object.assign(schemas, { NodeRecord: nodeRecord, CreateNodeRequest: createNode, SearchRequest: searchRequest, SearchResult: searchResult });
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
}
