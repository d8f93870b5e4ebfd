import { SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';

/**
 * Route tags that read like the interface spec's "Auth" column. Every route carries exactly
 * one; a test enumerates the registered routes and fails on an untagged one.
 */
export const AUTH_TAG = 'strata:auth-tag';
export type AuthTag = 'public' | 'api_key_or_jwt' | 'user_jwt' | 'owner_admin_jwt' | 'owner_jwt';

/** Whether a route writes. GET reads; other methods write unless marked `ReadsOnly`. */
export const ACCESS_KIND = 'strata:access-kind';
export type AccessKind = 'read' | 'write' | 'by_action' | 'in_spaces';

/**
 * A controller method's tag and access kind, the method's own metadata over its class's (as
 * Nest's `Reflector.getAllAndOverride`); an untagged route is `api_key_or_jwt`.
 */
export function routeMetadataOf(handler: Function, controller: Function): { tag: AuthTag; access: AccessKind | undefined } {
  const meta = <T>(key: string): T | undefined => Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);
  return { tag: meta<AuthTag>(AUTH_TAG) ?? 'api_key_or_jwt', access: meta<AccessKind>(ACCESS_KIND) };
}

/**
 * Key of the Fastify route config that marks a public route. The early authentication hook
 * (configure-http.ts), which runs before Nest knows the route, reads it.
 */
export const PUBLIC_ROUTE_CONFIG = 'strata_public';

/**
 * A public route. On handlers only (a method decorator): the Fastify route config it also
 * sets is read per handler, so a class-level tag would not reach Fastify.
 */
export const Public = (): MethodDecorator => (target, key, descriptor) => {
  SetMetadata(AUTH_TAG, 'public' satisfies AuthTag)(target, key, descriptor);
  RouteConfig({ [PUBLIC_ROUTE_CONFIG]: true })(target, key, descriptor);
};
export const ApiKeyOrJwt = () => SetMetadata(AUTH_TAG, 'api_key_or_jwt' satisfies AuthTag);
export const UserJwt = () => SetMetadata(AUTH_TAG, 'user_jwt' satisfies AuthTag);
export const OwnerAdminJwt = () => SetMetadata(AUTH_TAG, 'owner_admin_jwt' satisfies AuthTag);
export const OwnerJwt = () => SetMetadata(AUTH_TAG, 'owner_jwt' satisfies AuthTag);

/** A POST that only reads (search, retrieval, traversal): allowed for read-only keys. */
export const ReadsOnly = () => SetMetadata(ACCESS_KIND, 'read' satisfies AccessKind);
/**
 * An action-dispatched route (cognitive endpoints): the guard lets read-only credentials in
 * and the handler calls `assertCanWrite` for the actions that write.
 */
export const AccessByAction = () => SetMetadata(ACCESS_KIND, 'by_action' satisfies AccessKind);
/**
 * A writing route whose every change is a graph change the Space rule judges node by node
 * (generic node and edge writes, `/batch`): an org viewer may call it, and the unit of work
 * lets it write only inside a Space it holds a `write` grant on (REFERENCE §13.1).
 */
export const WritesInSpaces = () => SetMetadata(ACCESS_KIND, 'in_spaces' satisfies AccessKind);
