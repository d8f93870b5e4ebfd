import { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { edgePropsSchemas, nodePropsSchemas } from '@strata/domain/catalogue';
import { VERSION } from '@strata/platform/version';
import { FastRoutes } from './fast-routes';

/**
 * OpenAPI at /openapi.json. The node and edge props schemas are derived
 * from the catalogue, not written by hand.
 */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Strata')
    .setDescription('Event-sourced knowledge-graph service for people and AI agents')
    .setVersion(VERSION)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'user JWT or organization API key (strata_…)' })
    .addSecurityRequirements('bearer')
    .build();
  const doc = SwaggerModule.createDocument(app, config);
  doc.components = doc.components ?? {};
  const schemas = (doc.components.schemas = doc.components.schemas ?? {}) as Record<string, unknown>;
  for (const [name, schema] of Object.entries(nodePropsSchemas())) schemas[`${name}Props`] = schema;
  for (const [name, schema] of Object.entries(edgePropsSchemas())) schemas[`${name}EdgeProps`] = schema;
  for (const r of app.get(FastRoutes).list()) {
    const item = (doc.paths[r.doc.path] = doc.paths[r.doc.path] ?? {}) as Record<string, unknown>;
    item[r.method.toLowerCase()] = { tags: [r.doc.tag], summary: r.doc.summary, parameters: r.doc.parameters, responses: { '200': { description: '' } } };
  }
  // served as JSON only: the UI bundle would pull @fastify/static and its ESM dependencies
  const json = JSON.stringify(doc);
  const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
  fastify.get('/openapi.json', (_req, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').send(json);
  });
}
