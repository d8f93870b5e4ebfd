import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { CredentialResolver } from '../libs/auth/src/credential-resolver';
import { PlanThrottlerGuard } from '../libs/auth/src/rate-limit/plan-throttler.guard';
import { StrataAuthGuard } from '../libs/auth/src/strata-auth.guard';
import { DirectAuthenticator } from '../libs/auth/src/direct-authenticator';
import { startApp } from '../apps/api/src/bootstrap';
import { loadConfig } from '@strata/platform/config/strata-config';
import { NodesController } from '../apps/api/src/graph/nodes/nodes.controller';

/**
 * The authentication hot path. Micro: the global guard on a controller route
 * (`GET /node/{uid}/history`: route tag lookup, cached credential,
 * rate-limit counter) per call, for an API key and a user JWT, cached; the fast lane's
 * DirectAuthenticator (same resolver, rules and counter, no Nest pipeline); and the cold path
 * (SHA-256 + read-model lookup) for comparison.
 * Macro: `GET /node/{uid}` (a fast-lane route) over HTTP (autocannon, 32 connections) with an
 * API key, with a user JWT, with authentication replaced by a stub (what it costs), and a bare
 * Fastify server returning the same JSON (the core issue's budget: at least 40% of it).
 */
export async function run(): Promise<Record<string, number>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-bench-auth-'));
  const cfg = { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, rateLimitPerMinute: 100_000_000 };
  const running = await startApp(cfg, { logger: false });
  const out: Record<string, number> = {};
  try {
    const post = async (p: string, body: unknown, token?: string) => {
      const r = await fetch(running.url + p, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return r.json() as Promise<Record<string, any>>;
    };
    const s = await post('/v1/auth/signup', { email: 'bench@example.com', password: 'bench password 123' });
    const key = (await post('/v1/api-keys', { name: 'bench', scopes: ['read', 'write'] }, s.access_token)).key as string;
    const node = await post('/node', { label: 'bench node', node_type: 'Concept' }, key);

    // ---- micro: the guard itself
    const app = running.app;
    const resolver = app.get(CredentialResolver);
    const guard = new StrataAuthGuard(app.get(PlanThrottlerGuard), app.get(DirectAuthenticator));
    const handler = NodesController.prototype.nodeHistory;
    const headersOf = (token: string) => ({ authorization: `Bearer ${token}` });
    const res = { header: () => res };
    const ctxFor = (token: string) => {
      const req = { method: 'GET', url: `/node/${node.uid}`, headers: headersOf(token), ip: '127.0.0.1', strata: { request_id: 'x' } };
      return new ExecutionContextHost([req, res], NodesController, handler);
    };
    const time = async (n: number, fn: () => Promise<unknown>) => {
      for (let i = 0; i < 2000; i++) await fn();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await fn();
      return Number(process.hrtime.bigint() - t0) / 1000 / n;
    };
    out.auth_guard_api_key_cached_us = round(await time(50_000, async () => guard.canActivate(ctxFor(key))));
    out.auth_guard_jwt_cached_us = round(await time(50_000, async () => guard.canActivate(ctxFor(s.access_token))));
    const direct = app.get(DirectAuthenticator);
    const directReq = (token: string) =>
      ({ method: 'GET', url: `/node/${node.uid}`, headers: headersOf(token), ip: '127.0.0.1', strata: { request_id: 'x' } }) as never;
    out.auth_direct_api_key_cached_us = round(await time(50_000, async () => direct.authenticate(directReq(key), res as never, { tag: 'api_key_or_jwt', access: 'read' })));
    out.auth_resolve_api_key_cached_us = round(await time(200_000, async () => resolver.resolve(key)));
    out.auth_resolve_api_key_cold_us = round(
      await time(5_000, async () => {
        resolver.invalidate({ kind: 'key', key_id: node.uid }); // no-op id: keep the map; clear below
        (resolver as unknown as { keys: Map<string, unknown> }).keys.clear();
        return resolver.resolve(key);
      }),
    );

    // ---- macro: HTTP, 32 connections; rounds interleaved so background load hits all variants alike
    const autocannon = require('autocannon');
    const blast = (url: string, headers: Record<string, string>) =>
      new Promise<{ requests: { average: number }; latency: { p99: number } }>((resolve, reject) =>
        autocannon({ url, connections: 32, duration: Number(process.env.STRATA_BENCH_SECONDS ?? 3), headers }, (err: Error, r: any) => (err ? reject(err) : resolve(r))),
      );
    const fastify = require('fastify')({ logger: false });
    const doc = JSON.stringify(node);
    fastify.get('/node/:uid', (_req: unknown, reply: any) => reply.header('content-type', 'application/json; charset=utf-8').send(doc));
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = `http://127.0.0.1:${fastify.server.address().port}/node/${node.uid}`;
    const nodeUrl = `${running.url}/node/${node.uid}`;
    const keyCtx = resolver.resolve(key);
    const original = DirectAuthenticator.prototype.authenticate;
    const noAuth = async function (this: DirectAuthenticator, req: any) {
      req.strata.auth = keyCtx;
      return keyCtx;
    };
    const runs: Record<string, number[]> = { key: [], jwt: [], none: [], bare: [], key_p99: [] };
    await blast(nodeUrl, { authorization: `Bearer ${key}` }); // warm-up
    try {
      for (let round = 0; round < Number(process.env.STRATA_BENCH_ROUNDS ?? 3); round++) {
        const k = await blast(nodeUrl, { authorization: `Bearer ${key}` });
        runs.key.push(k.requests.average);
        runs.key_p99.push(k.latency.p99);
        runs.jwt.push((await blast(nodeUrl, { authorization: `Bearer ${s.access_token}` })).requests.average);
        DirectAuthenticator.prototype.authenticate = noAuth;
        runs.none.push((await blast(nodeUrl, {})).requests.average);
        DirectAuthenticator.prototype.authenticate = original;
        runs.bare.push((await blast(bareUrl, {})).requests.average);
      }
    } finally {
      DirectAuthenticator.prototype.authenticate = original;
      await fastify.close();
    }
    if (process.env.STRATA_BENCH_VERBOSE) console.log(runs);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    out.get_node_api_key_rps = Math.round(median(runs.key));
    out.get_node_api_key_p99_ms = median(runs.key_p99);
    out.get_node_jwt_rps = Math.round(median(runs.jwt));
    out.get_node_without_auth_rps = Math.round(median(runs.none));
    out.get_node_bare_fastify_rps = Math.round(median(runs.bare));
    out.get_node_api_key_vs_bare_pct = Math.round((100 * median(runs.key)) / median(runs.bare));
    out.auth_http_overhead_pct = Math.round(100 * (1 - median(runs.key) / median(runs.none)));
    out.auth_cache_key_hits = resolver.stats.key_hits;
    out.auth_cache_key_misses = resolver.stats.key_misses;
  } finally {
    await running.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
