import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };
export type StrataClient = Client<paths>;

/**
 * A client for one Strata service, authenticated with an organization API key (`strata_…`)
 * or a user JWT. Paths, path parameters, bodies and responses are typed from the service's
 * OpenAPI document (`npm run client:generate` regenerates `schema.d.ts`).
 */
export function createStrataClient(baseUrl: string, apiKey: string, init: { fetch?: typeof fetch } = {}): StrataClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${apiKey}` },
    ...(init.fetch ? { fetch: init.fetch } : {}),
  });
}
