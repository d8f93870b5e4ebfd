import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';

/**
 * Why protected resource metadata naming `resource` must not be used for the MCP server at
 * `serverUrl`, or null when it may: RFC 9728 §3.3 forbids metadata naming another resource,
 * since a token asked for it would be another service's, sent to this one (RFC 8707: the
 * server's own URI). The server's URL, its origin or a path above it are the server itself;
 * metadata naming no resource is taken as the server's.
 */
export function foreignResourceRefusal(serverUrl: URL, resource: string | undefined): string | null {
  if (resource === undefined) return null;
  const own = resourceUrlFromServerUrl(serverUrl);
  if (checkResourceAllowed({ requestedResource: own, configuredResource: resource })) return null;
  return `the protected resource metadata names ${resource}, not this server (${own.href})`;
}
