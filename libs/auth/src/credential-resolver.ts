import { decideKeyAccess, scopesOfRole } from '@strata/domain/accounts';
import { AgentScope, boundKeyScope } from '@strata/domain/agents';
import { Clock } from '@strata/domain/time';
import { AccountsDirectory, CredentialChange, DirectoryKey } from './accounts-directory.port';
import { AuthContext } from './auth-context';
import { AuthErrors } from './auth-errors';
import { randomBytes } from 'node:crypto';
import { isApiKeyToken, sha256Hex } from './tokens/secrets';
import { TokenService } from './tokens/token.service';

interface CachedKey {
  ctx: AuthContext;
  key_id: string;
  /** Unix seconds: the cached answer holds until then (expiry or end of rotation overlap) */
  valid_until: number;
}
interface CachedJwt {
  ctx: AuthContext;
  exp: number;
}

const MAX_ENTRIES = 50_000;

/** What a request of a key bound to a managed agent needs of the agent: its `scope` and `tools`. */
export interface BoundAgent {
  readonly scope: AgentScope;
  readonly tools: readonly string[];
}

/** The managed agent of that id (null: no such agent), read once for each request of a key bound to it. */
export type BoundAgentReader = (org: string, agentId: string) => BoundAgent | null;

/**
 * A credential as resolved for one request: its context and, for a key bound to a managed
 * agent, the agent record that context was narrowed with (undefined: not read for this request).
 */
export interface ResolvedCredential {
  auth: AuthContext;
  agent: BoundAgent | null | undefined;
}

function freeze(ctx: AuthContext): AuthContext {
  Object.freeze(ctx.scopes);
  Object.freeze(ctx.principal);
  if (ctx.space_uids) Object.freeze(ctx.space_uids);
  if (ctx.project_uids) Object.freeze(ctx.project_uids);
  return Object.freeze(ctx);
}

function evictOldest<K, V>(m: Map<K, V>): void {
  if (m.size < MAX_ENTRIES) return;
  let n = Math.ceil(MAX_ENTRIES / 10);
  for (const k of m.keys()) {
    m.delete(k);
    if (--n === 0) break;
  }
}

/**
 * Turns a bearer token into an AuthContext. Both kinds are cached: a cached API key costs
 * one map lookup and a time comparison; a cached JWT the same (its signature was checked
 * once). Changes projected from the log (revocation, rotation, plan, membership) evict the
 * affected entries at once, so the next request re-reads the read model.
 */
export class CredentialResolver {
  private readonly keys = new Map<string, CachedKey>();
  private readonly keyTokens = new Map<string, Set<string>>();
  private readonly jwts = new Map<string, CachedJwt>();
  /** in-process tokens lent for one call each (never stored, never leave the process) */
  private readonly delegated = new Map<string, AuthContext>();
  /** a bound key's context within its agent's scope, kept while that scope stays the same */
  private readonly bound = new WeakMap<AuthContext, { scope: string; ctx: AuthContext }>();
  readonly stats = { key_hits: 0, key_misses: 0, jwt_hits: 0, jwt_misses: 0 };

  constructor(
    private readonly directory: AccountsDirectory,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
    private readonly agentOf: BoundAgentReader | null = null,
  ) {
    directory.onCredentialChange((c) => this.invalidate(c));
  }

  /** `orgHeader`: X-Org-Id (users with several organizations); API keys ignore it. */
  resolve(token: string, orgHeader?: string): AuthContext {
    return this.resolveWithAgent(token, orgHeader).auth;
  }

  /** As `resolve`, with the bound managed agent read on the way, so the request need not read it again. */
  resolveWithAgent(token: string, orgHeader?: string): ResolvedCredential {
    const lent = this.delegated.get(token);
    if (lent !== undefined) return { auth: lent, agent: undefined };
    return isApiKeyToken(token) ? this.resolveKey(token) : { auth: this.resolveJwt(token, orgHeader), agent: null };
  }

  /** The managed agent a context's key is bound to, read now (null: none, or not a managed agent's). */
  boundAgentOf(ctx: AuthContext): BoundAgent | null {
    return ctx.bound_agent_id === null || this.agentOf === null ? null : this.agentOf(ctx.org_id, ctx.bound_agent_id);
  }

  /**
   * A token standing for `ctx` until `end` is called: how an in-process caller (the agent
   * runtime) reaches a route as a principal that holds no key. 32 random bytes; it exists
   * only in this map and is never written anywhere.
   */
  delegate(ctx: Omit<AuthContext, 'delegated'>): { token: string; end: () => void } {
    const token = `strata_rt_${randomBytes(32).toString('base64url')}`;
    this.delegated.set(token, freeze({ ...ctx, delegated: true }));
    return { token, end: () => void this.delegated.delete(token) };
  }

  private resolveKey(token: string): ResolvedCredential {
    const hit = this.keys.get(token);
    if (hit !== undefined) {
      if (this.clock.now() < hit.valid_until) {
        this.stats.key_hits++;
        return this.withinAgent(hit.ctx);
      }
      this.dropKeyToken(token, hit.key_id);
    }
    this.stats.key_misses++;
    const row = this.directory.keyBySecretHash(sha256Hex(token));
    if (!row) throw AuthErrors.invalidToken();
    const access = decideKeyAccess(row, this.clock.now());
    if (!access.ok) throw access.reason === 'expired' ? AuthErrors.apiKeyExpired() : AuthErrors.invalidToken();
    const ctx = this.keyContext(row);
    evictOldest(this.keys);
    this.keys.set(token, { ctx, key_id: row.key_id, valid_until: access.valid_until ?? Infinity });
    let set = this.keyTokens.get(row.key_id);
    if (!set) this.keyTokens.set(row.key_id, (set = new Set()));
    set.add(token);
    return this.withinAgent(ctx);
  }

  /**
   * A key bound to a managed agent acts within the agent's `scope` too (REFERENCE §13.3,
   * §16.13). The agent is read on every resolution rather than cached with the key, so a PATCH
   * of its scope or tools holds from the next request; the request keeps what was read.
   */
  private withinAgent(ctx: AuthContext): ResolvedCredential {
    const agent = this.boundAgentOf(ctx);
    if (agent === null) return { auth: ctx, agent };
    const lists = boundKeyScope(ctx, agent.scope);
    if (lists === ctx) return { auth: ctx, agent };
    const scope = JSON.stringify(lists);
    const kept = this.bound.get(ctx);
    if (kept?.scope === scope) return { auth: kept.ctx, agent };
    const narrowed = freeze({
      ...ctx,
      space_uids: lists.space_uids === null ? null : [...lists.space_uids],
      project_uids: lists.project_uids === null ? null : [...lists.project_uids],
    });
    this.bound.set(ctx, { scope, ctx: narrowed });
    return { auth: narrowed, agent };
  }

  private keyContext(row: DirectoryKey): AuthContext {
    const plan = this.directory.planOf(row.org_id) ?? 'free';
    return freeze({
      org_id: row.org_id,
      // the key itself is the acting principal, bound to an agent or not: a bound agent_id is
      // attribution (recorded as agent_id) and never makes the key act as another principal
      principal: { kind: 'api_key', id: row.key_id },
      credential: 'api_key',
      user_id: null,
      api_key_id: row.key_id,
      role: null,
      scopes: [...row.scopes],
      bound_agent_id: row.agent_id,
      space_uids: row.space_uids ? [...row.space_uids] : null,
      project_uids: row.project_uids ? [...row.project_uids] : null,
      plan,
    });
  }

  private resolveJwt(token: string, orgHeader?: string): AuthContext {
    const cacheKey = orgHeader ? `${token}\n${orgHeader}` : token;
    const hit = this.jwts.get(cacheKey);
    if (hit !== undefined) {
      if (this.clock.now() < hit.exp) {
        this.stats.jwt_hits++;
        return hit.ctx;
      }
      this.jwts.delete(cacheKey);
      throw AuthErrors.tokenExpired();
    }
    this.stats.jwt_misses++;
    const claims = this.tokens.verifyAccess(token);
    const memberships = this.directory.membershipsOf(claims.sub);
    let m = memberships[0];
    if (orgHeader) {
      m = memberships.find((x) => x.org_id === orgHeader)!;
      if (!m) throw AuthErrors.notAMember(orgHeader);
    }
    const ctx = freeze({
      org_id: m?.org_id ?? '',
      principal: { kind: 'user', id: claims.sub },
      credential: 'user_jwt',
      user_id: claims.sub,
      api_key_id: null,
      role: m?.role ?? null,
      scopes: m ? scopesOfRole(m.role) : [],
      bound_agent_id: null,
      space_uids: null,
      project_uids: null,
      plan: m?.plan ?? 'free',
    });
    evictOldest(this.jwts);
    this.jwts.set(cacheKey, { ctx, exp: claims.exp });
    return ctx;
  }

  private dropKeyToken(token: string, keyId: string): void {
    this.keys.delete(token);
    this.keyTokens.get(keyId)?.delete(token);
  }

  invalidate(c: CredentialChange): void {
    switch (c.kind) {
      case 'key': {
        for (const t of this.keyTokens.get(c.key_id) ?? []) this.keys.delete(t);
        this.keyTokens.delete(c.key_id);
        return;
      }
      case 'org':
        for (const [t, e] of this.keys) if (e.ctx.org_id === c.org_id) this.dropKeyToken(t, e.key_id);
        for (const [t, e] of this.jwts) if (e.ctx.org_id === c.org_id) this.jwts.delete(t);
        return;
      case 'user':
        for (const [t, e] of this.jwts) if (e.ctx.user_id === c.user_id) this.jwts.delete(t);
        return;
    }
  }

  /** number of cached credentials (tests, diagnostics) */
  get size(): { keys: number; jwts: number } {
    return { keys: this.keys.size, jwts: this.jwts.size };
  }
}
