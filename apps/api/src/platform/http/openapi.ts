import { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { edgePropsSchemas, nodePropsSchemas, triggerAliasBodySchemas } from '@strata/domain/catalogue';
import { cognitiveResultSchemas, cognitiveRouteSchemas } from '@strata/domain/cognitive/openapi-bodies';
import { VERSION } from '@strata/platform/version';
import { setupDocsPages } from './docs-pages';
import { FastRoutes } from './fast-routes';
import { toOpenApi31 } from './openapi-3-1';
import { addGraphShapes } from './openapi-graph-shapes';
import { referencedModels } from './responses/response-fields';

/**
 * OpenAPI at /openapi.json, Swagger UI over it at /docs. The node and edge props schemas and
 * the accepted aliases are derived from the catalogue, not written by hand.
 */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Strata')
    .setDescription('Event-sourced knowledge-graph service for people and AI agents')
    .setVersion(VERSION)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'user JWT or organization API key (strata_…)' })
    .addSecurityRequirements('bearer')
    .build();
  const doc = SwaggerModule.createDocument(app, config, { extraModels: referencedModels() });
  doc.components = doc.components ?? {};
  const schemas = (doc.components.schemas = doc.components.schemas ?? {}) as Record<string, unknown>;
  for (const [name, schema] of Object.entries(nodePropsSchemas())) schemas[`${name}Props`] = schema;
  for (const [name, schema] of Object.entries(edgePropsSchemas())) schemas[`${name}EdgeProps`] = schema;
  for (const r of app.get(FastRoutes).docs()) {
    const item = (doc.paths[r.doc.path] = doc.paths[r.doc.path] ?? {}) as Record<string, unknown>;
    const responses = r.doc.websocket ? websocketResponses() : { '200': { description: '' } };
    item[r.method.toLowerCase()] = { tags: [r.doc.tag], summary: r.doc.summary, parameters: r.doc.parameters, responses };
  }
  addCognitiveShapes(doc.paths as Record<string, Record<string, any>>, schemas);
  addTriggerAliases(doc.paths as Record<string, Record<string, any>>);
  addGraphShapes(doc as any);
  addOpenShapes(doc.paths as Record<string, Record<string, any>>);
  addWarningsHeader(doc.paths as Record<string, Record<string, any>>);
  const json = JSON.stringify(toOpenApi31(doc));
  const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
  fastify.get('/openapi.json', (_req, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').send(json);
  });
  setupDocsPages(fastify);
}

/**
 * Every cognitive route's body and answers, derived from its endpoint definition and the
 * catalogue (`cognitiveRouteSchemas`): the controllers read raw bodies, so Nest sees nothing.
 */
function addCognitiveShapes(paths: Record<string, Record<string, any>>, schemas: Record<string, unknown>): void {
  Object.assign(schemas, cognitiveResultSchemas());
  for (const [path, shapes] of Object.entries(cognitiveRouteSchemas())) {
    const op = paths[path]?.post;
    if (!op) continue;
    op.requestBody = { required: true, content: { 'application/json': { schema: shapes.request } } };
    const content = { 'application/json': { schema: shapes.response } };
    const responses: Record<string, any> = {};
    for (const [code, r] of Object.entries<any>(op.responses ?? {})) if (!/^2/.test(code)) responses[code] = r;
    responses['200'] = { description: 'transitions, reads and upserts that update', content };
    if (shapes.creates) responses['201'] = { description: 'an action created a node or an edge', content };
    op.responses = responses;
  }
}

/**
 * What no derivation describes yet still gets a body and an answer in the document, open
 * JSON objects, so that the typed client can call every route: a write route takes a JSON
 * object, and every route answers JSON. The interface spec names their fields.
 */
function addOpenShapes(paths: Record<string, Record<string, any>>): void {
  for (const item of Object.values(paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (typeof op !== 'object' || op === null || method === 'parameters') continue;
      if (['post', 'put', 'patch'].includes(method) && !op.requestBody)
        op.requestBody = { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } };
      const responses = (op.responses ??= {});
      const ok = Object.keys(responses).filter((c) => /^2/.test(c));
      // a WebSocket upgrade answers 101 and nothing else on success
      if (ok.length === 0 && !responses['101']) responses['200'] = { description: 'OK' };
      for (const code of Object.keys(responses).filter((c) => /^2/.test(c) && c !== '204')) {
        const r = responses[code];
        if (!r.content) r.content = { 'application/json': { schema: { description: 'see the interface spec for this route’s fields' } } };
        if (!r.description) r.description = 'OK';
      }
    }
  }
}

/**
 * The `strata-warnings` header of every cognitive route's success answers (§2.8: the keys of a
 * request the route did not use). `/retrieve`, `/traverse` and `/evolve` carry them only there.
 */
function addWarningsHeader(paths: Record<string, Record<string, any>>): void {
  const header = {
    description: 'JSON array of {field, reason}: keys of the request the route neither used nor lists (sent when there are any)',
    schema: { type: 'string' },
  };
  const cognitive = ['/retrieve', '/traverse', '/evolve', ...Object.keys(cognitiveRouteSchemas())];
  for (const path of cognitive) {
    const op = paths[path]?.post;
    if (!op) continue;
    for (const [code, r] of Object.entries<any>(op.responses ?? {})) if (/^2/.test(code)) r.headers = { ...(r.headers ?? {}), 'strata-warnings': header };
  }
}

const ERROR_BODY = {
  type: 'object',
  required: ['error', 'code'],
  properties: { error: { type: 'string' }, code: { type: 'string' } },
  additionalProperties: true,
};

/**
 * A WebSocket route's answers: the upgrade (101), and the errors a request gets before it:
 * 426 for a plain GET without `Upgrade: websocket`, 503 while the server starts or drains.
 * Credentials are checked after the upgrade, so they end in close codes, not in HTTP answers.
 */
function websocketResponses(): Record<string, unknown> {
  const error = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_BODY } } });
  return {
    '101': { description: 'Switching Protocols: the connection is now a WebSocket carrying JSON text frames' },
    '426': error('upgrade_required: a plain GET without `Upgrade: websocket`'),
    '503': error('unavailable: the server is starting or shutting down (`Retry-After`)'),
  };
}

/** The product clients' trigger field names (§2.8) as deprecated body properties of their routes. */
function addTriggerAliases(paths: Record<string, Record<string, any>>): void {
  for (const [path, aliases] of Object.entries(triggerAliasBodySchemas())) {
    const op = paths[path]?.post;
    if (!op) continue;
    const schema = op.requestBody?.content?.['application/json']?.schema;
    if (schema && !schema.$ref) schema.properties = { ...(schema.properties ?? {}), ...aliases.properties };
    else op.requestBody = { required: true, content: { 'application/json': { schema: { type: 'object', additionalProperties: true, properties: aliases.properties } } } };
    if (!Object.keys(aliases.props).length) continue;
    // keys sent inside props: one more alternative of the route's props object
    const body = op.requestBody.content['application/json'].schema;
    const props = (body.properties ??= {}).props;
    const alternative = { type: 'object', title: 'trigger aliases sent in props', properties: aliases.props, additionalProperties: true };
    if (!props) body.properties.props = alternative;
    else if (Array.isArray(props.anyOf)) props.anyOf.push(alternative);
    else {
      const { description, ...rest } = props;
      body.properties.props = { ...(description ? { description } : {}), anyOf: [rest, alternative] };
    }
  }
}
