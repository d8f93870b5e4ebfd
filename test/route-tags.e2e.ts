import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { AUTH_TAG, AuthTag } from '@strata/auth/route-tags';
import { FastRoutes } from '../apps/api/src/platform/http/fast-routes';
import { TestApp, startTestApp } from './support/test-app';

/**
 * Every route handler of every controller the application registers must carry exactly one
 * auth tag (@Public, @ApiKeyOrJwt, @UserJwt, @OwnerAdminJwt, @OwnerJwt), on the handler or
 * its controller. Enumerates the live application, so routes added later are checked too —
 * the controllers' routes and the fast-lane routes registered on Fastify directly.
 */
const TAGS: AuthTag[] = ['public', 'api_key_or_jwt', 'user_jwt', 'owner_admin_jwt', 'owner_jwt'];

interface RouteInfo {
  route: string;
  tag: AuthTag | undefined;
}

function join(...parts: (string | string[] | undefined)[]): string {
  const segs = parts.map((p) => (Array.isArray(p) ? p[0] : p) ?? '').filter((p) => p !== '' && p !== '/');
  return '/' + segs.map((p) => p.replace(/^\/+|\/+$/g, '')).join('/');
}

function enumerateRoutes(t: TestApp): RouteInfo[] {
  const modules = t.app.get(ModulesContainer);
  const reflector = t.app.get(Reflector);
  const scanner = new MetadataScanner();
  const out: RouteInfo[] = [];
  for (const mod of modules.values()) {
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as (new (...a: unknown[]) => unknown) | null;
      if (!ctrl || !ctrl.prototype) continue;
      const base = Reflect.getMetadata(PATH_METADATA, ctrl) as string | string[] | undefined;
      for (const name of scanner.getAllMethodNames(ctrl.prototype)) {
        const handler = (ctrl.prototype as Record<string, unknown>)[name] as object;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (path === undefined || method === undefined) continue;
        out.push({
          route: `${RequestMethod[method]} ${join(base, path)} (${ctrl.name}.${name})`,
          tag: reflector.getAllAndOverride<AuthTag>(AUTH_TAG, [handler as never, ctrl]),
        });
      }
    }
  }
  for (const r of t.app.get(FastRoutes).list()) out.push({ route: `${r.method} ${r.url} (fast lane)`, tag: r.auth.tag });
  return out;
}

describe('route auth tags', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('finds the routes of every area (the enumeration is not silently empty)', () => {
    const routes = enumerateRoutes(t).map((r) => r.route);
    for (const expected of ['GET /health', 'POST /node', 'GET /node/:uid', 'POST /v1/auth/signup', 'POST /v1/api-keys', 'GET /v1/usage'])
      expect(routes.some((r) => r.startsWith(expected + ' '))).toBe(true);
  });

  it('every route handler carries a known auth tag', () => {
    const untagged = enumerateRoutes(t)
      .filter((r) => r.tag === undefined || !TAGS.includes(r.tag))
      .map((r) => r.route);
    expect(untagged).toEqual([]);
  });

  it('the spec tags of the account routes are applied', () => {
    const byRoute = new Map(enumerateRoutes(t).map((r) => [r.route.split(' (')[0], r.tag]));
    const expected: Record<string, AuthTag> = {
      'GET /health': 'public',
      'POST /v1/auth/signup': 'public',
      'POST /v1/auth/login': 'public',
      'POST /v1/auth/refresh': 'public',
      'GET /v1/billing/plans': 'public',
      'GET /v1/account': 'user_jwt',
      'POST /v1/orgs': 'user_jwt',
      'GET /v1/orgs': 'user_jwt',
      'GET /v1/orgs/:org_id/members': 'user_jwt',
      'POST /v1/orgs/:org_id/members': 'user_jwt',
      'DELETE /v1/orgs/:org_id/members/:user_id': 'user_jwt',
      'POST /v1/api-keys': 'owner_admin_jwt',
      'GET /v1/api-keys': 'owner_admin_jwt',
      'POST /v1/api-keys/:id/rotate': 'owner_admin_jwt',
      'GET /v1/api-keys/:id/activity': 'owner_admin_jwt',
      'DELETE /v1/api-keys/:id': 'owner_admin_jwt',
      'GET /v1/usage': 'api_key_or_jwt',
      'GET /v1/billing/subscription': 'user_jwt',
      'POST /v1/billing/subscribe': 'user_jwt',
    };
    for (const [route, tag] of Object.entries(expected)) expect([route, byRoute.get(route)]).toEqual([route, tag]);
  });
});
