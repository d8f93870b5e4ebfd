import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The dashboard at /app: the web app `npm run build` writes into `dir` (docs/dashboard.md).
 * Every asset is read once at start-up and served under `/app/assets/<build>/`, where
 * `<build>` is a hash of the whole build: assets are cached for a year (a new build is a new
 * URL), and the page itself (`index.html`, for every other /app path, so deep links work) is
 * revalidated on each load. Everything is same-origin, under a strict Content-Security-Policy.
 */
export interface DashboardBundle {
  build: string;
  files: Map<string, { bytes: Buffer; type: string }>;
  index: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

/** No inline script or style, no third party: the app talks to this origin only. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const ASSET_PREFIX = '/app/assets/';

/** Reads a built dashboard; null when `dir` holds none (the sources were never built). */
export function loadDashboard(dir: string): DashboardBundle | null {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return null;
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const hash = createHash('sha256');
  const visit = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) visit(p);
      else {
        const type = TYPES[extname(name)];
        if (!type) continue; // index.html is served as the page; maps and the rest are not shipped
        const rel = relative(dir, p).split(sep).join('/');
        const bytes = readFileSync(p);
        hash.update(rel).update('\0').update(bytes).update('\0');
        files.set(rel, { bytes, type });
      }
    }
  };
  visit(dir);
  const template = readFileSync(indexPath, 'utf8');
  hash.update(template);
  const build = hash.digest('hex').slice(0, 16);
  return { build, files, index: template.replace(/\{\{ASSETS\}\}/g, `${ASSET_PREFIX}${build}/`) };
}

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', DASHBOARD_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

export function setupDashboard(fastify: FastifyInstance, dir: string): void {
  const bundle = loadDashboard(dir);
  const etag = bundle ? `"${bundle.build}"` : null;
  const page = (req: FastifyRequest, reply: FastifyReply) => {
    secure(reply);
    if (!bundle) {
      // not a server fault: this installation has no dashboard until it is built
      reply.code(404).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
      return;
    }
    reply.header('cache-control', 'no-cache').header('etag', etag!);
    if (req.headers['if-none-match'] === etag) {
      reply.code(304).send();
      return;
    }
    reply.header('content-type', 'text/html; charset=utf-8').send(bundle.index);
  };
  fastify.get('/app', page);
  fastify.get('/app/*', (req, reply) => {
    const path = req.url.split('?')[0];
    if (!path.startsWith(ASSET_PREFIX)) return page(req, reply);
    secure(reply);
    const rest = path.slice(ASSET_PREFIX.length);
    const slash = rest.indexOf('/');
    const file = bundle && slash > 0 && rest.slice(0, slash) === bundle.build ? bundle.files.get(rest.slice(slash + 1)) : undefined;
    if (!file) {
      // an asset of another build (a page loaded before a deploy) is not served as this one's
      reply.code(404).header('cache-control', 'no-store').send({ error: 'no such dashboard asset (reload the page)', code: 'not_found' });
      return;
    }
    reply.header('content-type', file.type).header('cache-control', 'public, max-age=31536000, immutable').send(file.bytes);
  });
}

const NOT_BUILT = `<!DOCTYPE html>
<html lang="en">
  <head><meta charset="utf-8"><title>Strata dashboard</title></head>
  <body>
    <h1>The dashboard is not built</h1>
    <p>Run <code>npm run build</code> (or <code>npm start</code>, which builds when needed), then reload.</p>
  </body>
</html>
`;
