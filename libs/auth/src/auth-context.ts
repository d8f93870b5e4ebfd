import { Principal } from '@strata/domain/events';

/**
 * Where the AuthContext of one HTTP request carries what the policy gate reads about that
 * request (its method, path, body: HttpRequestFacts of the platform's policy module, opaque
 * here). The resolver's cached context is shared by every request of a credential, so the
 * guard hands each request its own shallow copy with the facts under this key; every command
 * context is built from the request's AuthContext, so the facts reach the unit of work
 * without an AsyncLocalStorage (on Node 20 one turns on promise hooks for every promise of
 * the process: measured about 8 % of the CPU time of POST /node).
 */
export const REQUEST_FACTS: unique symbol = Symbol('strata.request_facts');

export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export type Scope = 'read' | 'write';

/**
 * Who is calling, resolved from the credential by the auth guard and attached to the request.
 * Every command and query takes its organization from here, never from the request body.
 */
export interface AuthContext {
  org_id: string;
  principal: Principal;
  /** kind of credential presented */
  credential: 'user_jwt' | 'api_key';
  user_id: string | null;
  api_key_id: string | null;
  role: Role | null;
  scopes: Scope[];
  /** agent a key is bound to: attribution for every write made with it */
  bound_agent_id: string | null;
  /** Space/Project restrictions; null = organization-wide */
  space_uids: string[] | null;
  project_uids: string[] | null;
  plan: string;
  /**
   * Set on the credential the managed-agent runtime lends an agent for one tool call
   * (CredentialResolver.delegate): it acts as `agent:<id>` inside the agent's scope, outside
   * HTTP rate limits (REFERENCE §16.4).
   */
  delegated?: boolean;
  /**
   * Set on that lent credential: the call is an agent's tool call, so a policy
   * `require_approval` asks for a tool approval (REFERENCE §15.10) instead of a request
   * Approval; `approval_id` names the approved one it runs under.
   */
  tool_call?: ToolCallGrant;
  /** the HTTP request this context was resolved for (see REQUEST_FACTS); absent outside a request */
  [REQUEST_FACTS]?: unknown;
}

/** Properties of the Fastify request the policy module fills in `onRequest` (read by the guard). */
export interface RequestWithFacts {
  [REQUEST_FACTS]?: unknown;
}

/** The AuthContext of one request: the credential's, with the request's facts when it has them. */
export function authForRequest(auth: AuthContext, req: unknown): AuthContext {
  const facts = (req as RequestWithFacts)[REQUEST_FACTS];
  return facts === undefined ? auth : { ...auth, [REQUEST_FACTS]: facts };
}

/** An agent tool call's standing before policies: the approved tool approval it runs under, if any. */
export interface ToolCallGrant {
  approval_id: string | null;
}

/** Properties we attach to the Fastify request. */
export interface StrataRequestState {
  request_id: string;
  auth?: AuthContext;
}
