import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * Swagger UI at /docs over /openapi.json, and a short page at / that says where to go. The UI
 * comes from `swagger-ui-dist`, which @nestjs/swagger depends on (resolved through it, so it
 * is the exact version that package ships with); only the files the page loads are served.
 */
export function setupDocsPages(fastify: FastifyInstance): void {
  const dist = swaggerUiDist();
  const assets: Record<string, string> = {
    'swagger-ui.css': 'text/css; charset=utf-8',
    'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
    'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
    'favicon-32x32.png': 'image/png',
  };
  const cache = new Map<string, Buffer>();
  for (const [file, type] of Object.entries(assets)) {
    fastify.get(`/docs/${file}`, (_req, reply) => {
      let bytes = cache.get(file);
      if (!bytes) cache.set(file, (bytes = readFileSync(join(dist, file))));
      reply.header('content-type', type).header('cache-control', 'public, max-age=3600').send(bytes);
    });
  }
  fastify.get('/docs/init.js', (_req, reply) => {
    reply.header('content-type', 'text/javascript; charset=utf-8').send(DOCS_INIT);
  });
  fastify.get('/docs', (_req, reply) => {
    reply.header('content-type', 'text/html; charset=utf-8').send(DOCS_PAGE);
  });
  fastify.get('/', (_req, reply) => {
    reply.header('content-type', 'text/html; charset=utf-8').send(HOME_PAGE);
  });
}

function swaggerUiDist(): string {
  const viaSwagger = { paths: [dirname(require.resolve('@nestjs/swagger/package.json'))] };
  return dirname(require.resolve('swagger-ui-dist/package.json', viaSwagger));
}

// the initializer is a file, not an inline script, so a strict Content-Security-Policy in front still allows it
const DOCS_INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout',
  });
};
`;

const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Strata API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/swagger-ui-standalone-preset.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const HOME_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Strata</title>
  </head>
  <body>
    <h1>Strata</h1>
    <p>An event-sourced knowledge graph for people and AI agents. Every route needs a user JWT or an API key except these:</p>
    <ul>
      <li><a href="/app">/app</a>: the dashboard (sign in, API keys, the graph, ingestion, reviews)</li>
      <li><a href="/docs">/docs</a>: the API, browsable (Swagger UI)</li>
      <li><a href="/openapi.json">/openapi.json</a>: the OpenAPI document</li>
      <li><a href="/health">/health</a>: whether the service is up</li>
    </ul>
  </body>
</html>
`;
