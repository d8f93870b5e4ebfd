import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { AuthErrors } from '@strata/auth/auth-errors';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { DomainError, Errors } from '@strata/domain/errors';
import {
  ConnectionAuthInput,
  MAX_TOOLS,
  McpAuthView,
  McpConnectionChanges,
  McpStreams,
  redactSecrets,
  slugFor,
  staticAuthHeaders,
  staticAuthView,
  urlNotAllowed,
} from '@strata/domain/mcp';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { AddressNotAllowedError, InspectResult } from '@strata/mcp/client';
import { ConnectionCredentials, ConnectionSync, FetchedTools, McpNetwork, McpOAuth, OAuthClientState, OAuthFailure, SyncFailure, oauthStateOf } from '@strata/mcp/connections';
import { SECRET_STORE, SecretStore } from '@strata/platform/secrets';
import { tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ConnectionView, McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { ToolApprovals } from '@strata/mcp/approvals';
import { CreateConnectionDto, PatchConnectionDto, ReauthorizeConnectionDto } from './connection.dto';
import { iso, presentConnection, presentSync } from './connection-presenter';

const STATUSES = ['active', 'pending_auth', 'error', 'disconnected'] as const;

function contextOf(auth: AuthContext, requestId: string): CommandContext {
  return { org: auth.org_id, principal: auth.principal, credential_id: auth.api_key_id, agent_id: null, request_id: requestId };
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** The checks' tools as a sync takes them. */
function fetchedOf(r: InspectResult): FetchedTools {
  return {
    protocol_version: r.protocol_version ?? '',
    server_info: r.server_info,
    instructions: r.instructions,
    capabilities: r.capabilities,
    tools: r.tools,
    warnings: r.warnings,
    list_changed: false,
  };
}

/** Saved connections (REFERENCE §15.2-15.4, §15.7-15.9): create, read, change, sync, disconnect. */
@Injectable()
export class ConnectionHandlers {
  private readonly log = new Logger('McpConnections');

  constructor(
    private readonly reads: McpReadModel,
    private readonly network: McpNetwork,
    private readonly sync: ConnectionSync,
    private readonly credentials: ConnectionCredentials,
    private readonly oauth: McpOAuth,
    @Inject(SECRET_STORE) private readonly secrets: SecretStore,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly plans: PlanLimits,
    private readonly approvals: ToolApprovals,
  ) {}

  /** 403 `plan_limit_reached` when the organization already holds its plan's live connections (§17). */
  private assertUnderPlan(auth: AuthContext): void {
    const plan = this.plans.planOf(auth);
    const max = plan.limits.mcp_connections;
    const current = this.reads.liveConnectionCount(auth.org_id);
    if (max !== null && current >= max) throw AuthErrors.planLimitReached('mcp_connections', max, current, plan.id);
  }

  /** 404 for unknown and other organizations' ids alike. */
  connection(org: string, id: string): ConnectionView {
    const c = this.reads.connection(org, id);
    if (!c) throw Errors.notFound(`MCP connection ${id} not found`, { field: 'id', uid: id });
    return c;
  }

  private async present(c: ConnectionView) {
    const bag = c.authorization_expires_at !== null ? await this.secrets.get(c.org_id, c.id) : null;
    return presentConnection(c, bag?.authorization_url ?? null, this.clock.now());
  }

  async get(auth: AuthContext, id: string) {
    return this.present(this.connection(auth.org_id, id));
  }

  async list(auth: AuthContext, q: { status?: string; include_disconnected: boolean; limit: number; offset: number }) {
    if (q.status !== undefined && !(STATUSES as readonly string[]).includes(q.status)) throw Errors.invalidField('status', `status must be one of: ${STATUSES.join(', ')}`, { allowed: [...STATUSES] });
    const page = this.reads.connections(auth.org_id, { status: q.status, includeDisconnected: q.include_disconnected, limit: q.limit, offset: q.offset });
    return { items: await Promise.all(page.items.map((c) => this.present(c))), has_more: page.has_more, limit: q.limit, offset: q.offset };
  }

  private assertNameFree(org: string, name: string, self: string | null): void {
    const clash = this.reads.liveConnections(org).find((c) => c.name === name && c.id !== self);
    if (clash) throw Errors.duplicate(`an MCP connection named '${name}' exists`, { field: 'name', existing_id: clash.id });
  }

  /** The inspect checks with the credentials: 422 `mcp_check_failed` with `checks` unless all pass. */
  private async checkServer(url: URL, auth: ConnectionAuthInput): Promise<InspectResult> {
    let r: InspectResult;
    try {
      // the checks keep their own deadline (inspectMs): past it the check under way fails
      r = await this.network.inspector(() => this.clock.now()).inspect(url, auth);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw urlNotAllowed(err.message);
      throw new DomainError(422, 'mcp_check_failed', `the server could not be checked: ${redactSecrets((err as Error).message, Object.values(staticAuthHeaders(auth)))}`, { checks: [] });
    }
    if (r.ok && r.tools.length > MAX_TOOLS) {
      const tools = r.checks.find((c) => c.name === 'tools');
      if (tools) Object.assign(tools, { status: 'fail', detail: `the server lists ${r.tools.length} tools; a connection takes at most ${MAX_TOOLS} (too_many_tools)` });
      r.ok = false;
    }
    if (!r.ok) throw new DomainError(422, 'mcp_check_failed', 'the server failed the connection checks', { checks: r.checks });
    return r;
  }

  /** `return_url`: a path, or a URL on STRATA_PUBLIC_URL's origin (400 otherwise). */
  private returnUrl(raw: string | undefined, origin: string): string | null {
    if (raw === undefined) return null;
    const base = this.oauth.baseUrl(origin);
    if (raw.startsWith('/') && !raw.startsWith('//')) return base + raw;
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw Errors.invalidField('return_url', 'return_url must be a path starting with / or a URL on the service’s public origin');
    }
    if (u.origin !== new URL(base).origin) throw Errors.invalidField('return_url', 'return_url must be on the service’s public origin');
    return u.toString();
  }

  /** Discovery and registration (§15.7 steps 1-2): 422 `mcp_check_failed` naming the failed check. */
  private async oauthClient(url: URL, input: Extract<ConnectionAuthInput, { type: 'oauth' }>, redirectUri: string, origin: string): Promise<OAuthClientState> {
    let discovered;
    try {
      discovered = await withDeadline(this.oauth.discover(url), this.network.limits.inspectMs, 'OAuth discovery');
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw urlNotAllowed(err.message);
      throw new DomainError(422, 'mcp_check_failed', 'OAuth discovery failed', { checks: [{ name: 'auth_discovery', status: 'fail', detail: (err as Error).message }] });
    }
    try {
      return await this.oauth.register(discovered, input, redirectUri, origin);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw urlNotAllowed(err.message);
      throw new DomainError(422, 'mcp_check_failed', 'OAuth client registration failed', { checks: [{ name: 'registration', status: 'fail', detail: err instanceof OAuthFailure ? err.message : 'registration failed' }] });
    }
  }

  private oauthAuthView(client: OAuthClientState, tokens: Record<string, string> | null): McpAuthView {
    return {
      type: 'oauth',
      configured: !!tokens?.access_token,
      hint: null,
      header_names: [],
      credential_fingerprint: tokens?.access_token ? this.oauth.fingerprint(tokens) : null,
      oauth: this.oauth.view(client, tokens),
    };
  }

  private async createOAuth(auth: AuthContext, dto: CreateConnectionDto, url: URL, origin: string, requestId: string) {
    const org = auth.org_id;
    const input = dto.auth as Extract<ConnectionAuthInput, { type: 'oauth' }>;
    const returnUrl = this.returnUrl(dto.return_url, origin);
    const redirectUri = `${this.oauth.baseUrl(origin)}/v1/mcp/oauth/callback`;
    const client = await this.oauthClient(url, input, redirectUri, origin);
    const id = this.ids.uuid();
    const started = await this.oauth.authorize(org, id, client, redirectUri, returnUrl);
    await this.secrets.put(org, id, started.bag);
    try {
      await this.uow.run(contextOf(auth, requestId), async (tx) => {
        this.assertNameFree(org, dto.name, null);
        this.assertUnderPlan(auth);
        tx.emit(McpStreams.connection(org, id), 'McpConnectionCreated', {
          org_id: org, connection_id: id, name: dto.name, slug: slugFor(dto.name, this.reads.slugs(org)), url: url.toString(), status: 'pending_auth',
          auth: this.oauthAuthView(client, null), approval_mode: dto.approval_mode ?? 'always', tool_approvals: dto.tool_approvals ?? {},
          approval_timeout_s: dto.approval_timeout_s ?? 3600, call_timeout_s: dto.call_timeout_s ?? 60, protocol_version: null, server_info: null, instructions: null,
          authorization_expires_at: started.expiresAt, created_by: auth.principal.id, at: tx.now,
        }, 'no_stream');
      });
    } catch (err) {
      await this.secrets.destroy(org, id).catch(() => undefined);
      throw err;
    }
    return this.present(this.connection(org, id));
  }

  /**
   * The OAuth callback (§15.7): `state` finds the connection; the code is exchanged, the checks
   * run with the token, and the connection becomes `active` (baseline sync), or stays
   * `pending_auth` with `last_error`.
   */
  async callback(q: { code?: string; state?: string; iss?: string; error?: string; error_description?: string }) {
    if (!q.state) throw Errors.invalidField('state', 'state is unknown or expired');
    const ref = await this.oauth.connectionOfState(q.state);
    if (!ref) throw Errors.invalidField('state', 'state is unknown or expired');
    await this.oauth.forgetState(ref.state_hash);
    const c = this.reads.connection(ref.org, ref.connection_id);
    const bag = await this.secrets.get(ref.org, ref.connection_id);
    const s = oauthStateOf(bag);
    if (!c || !bag || !s.client || !s.pending || s.pending.state_hash !== ref.state_hash || this.clock.now() >= s.pending.expires_at || c.status === 'disconnected')
      throw Errors.invalidField('state', 'state is unknown or expired');
    const client = s.client;
    const pending = s.pending;
    const { oauth_pending: _p, authorization_url: _u, ...kept } = bag;
    const ctx: CommandContext = { org: c.org_id, principal: { kind: 'system', id: 'system' }, credential_id: null, agent_id: null, request_id: 'mcp-oauth-callback' };
    const fail = async (code: string, message: string) => {
      await this.secrets.put(c.org_id, c.id, kept);
      await this.uow.run(ctx, async (tx) => {
        tx.emit(McpStreams.connection(c.org_id, c.id), 'McpConnectionStatusChanged', { org_id: c.org_id, connection_id: c.id, from: c.status as 'pending_auth', to: c.status as 'pending_auth', error: { code, message: message.slice(0, 500), at: tx.now }, at: tx.now });
      });
      return { connection: await this.present(this.connection(c.org_id, c.id)), return_url: pending.return_url };
    };
    if (q.error) return fail('access_denied', `the authorization server answered ${q.error.slice(0, 100)}`);
    if (!q.code) return fail('token_exchange_failed', 'the callback carried no code');
    const meta = client.metadata as { issuer: string; authorization_response_iss_parameter_supported?: boolean };
    if (meta.authorization_response_iss_parameter_supported && q.iss !== meta.issuer) return fail('token_exchange_failed', 'the callback’s iss is not the authorization server’s issuer');
    let tokens;
    try {
      tokens = await this.oauth.exchange(client, pending, q.code);
    } catch (err) {
      return fail('token_exchange_failed', (err as Error).message);
    }
    const next = { ...kept, ...this.oauth.tokenBag(tokens, null) };
    await this.secrets.put(c.org_id, c.id, next);
    let fetched: FetchedTools;
    try {
      fetched = await this.sync.fetchTools(new URL(c.url), { authorization: `Bearer ${next.access_token}` });
    } catch (err) {
      return fail('mcp_check_failed', err instanceof SyncFailure ? `${err.code}: ${err.message}` : (err as Error).message);
    }
    await this.uow.run(ctx, async (tx) => {
      const current = this.reads.connection(c.org_id, c.id) ?? c;
      tx.emit(McpStreams.connection(c.org_id, c.id), 'McpConnectionAuthorized', {
        org_id: c.org_id, connection_id: c.id, auth: this.oauthAuthView(client, next), protocol_version: fetched.protocol_version, server_info: fetched.server_info, instructions: fetched.instructions, at: tx.now,
      }, current.revision);
      await this.sync.stageSync(tx, { ...this.sync.targetOf(current), status: 'active' }, fetched, tx.now);
    });
    return { connection: await this.present(this.connection(c.org_id, c.id)), return_url: pending.return_url };
  }

  async create(auth: AuthContext, dto: CreateConnectionDto, requestId: string, origin: string) {
    const org = auth.org_id;
    this.assertNameFree(org, dto.name, null);
    // before any contact with the server; checked again in the unit of work against races
    this.assertUnderPlan(auth);
    const url = await this.network.checkUrl(dto.url);
    if (dto.auth.type === 'oauth') return this.createOAuth(auth, dto, url, origin, requestId);
    const checked = await this.checkServer(url, dto.auth);
    const id = this.ids.uuid();
    await this.secrets.put(org, id, this.credentials.staticBag(dto.auth));
    try {
      await this.uow.run(contextOf(auth, requestId), async (tx) => {
        this.assertNameFree(org, dto.name, null);
        this.assertUnderPlan(auth);
        tx.emit(McpStreams.connection(org, id), 'McpConnectionCreated', {
          org_id: org,
          connection_id: id,
          name: dto.name,
          slug: slugFor(dto.name, this.reads.slugs(org)),
          url: url.toString(),
          status: 'active',
          auth: staticAuthView(dto.auth),
          approval_mode: dto.approval_mode ?? 'always',
          tool_approvals: dto.tool_approvals ?? {},
          approval_timeout_s: dto.approval_timeout_s ?? 3600,
          call_timeout_s: dto.call_timeout_s ?? 60,
          protocol_version: checked.protocol_version,
          server_info: checked.server_info,
          instructions: checked.instructions,
          authorization_expires_at: null,
          created_by: auth.principal.id,
          at: tx.now,
        }, 'no_stream');
        await this.sync.stageSync(tx, { org, connection_id: id, name: dto.name, baseline: true, status: 'active', last_error: null }, fetchedOf(checked), tx.now);
      });
    } catch (err) {
      // nothing was written: the secrets go too
      await this.secrets.destroy(org, id).catch(() => undefined);
      throw err;
    }
    return this.present(this.connection(org, id));
  }

  async patch(auth: AuthContext, id: string, dto: PatchConnectionDto, requestId: string) {
    const org = auth.org_id;
    const c = this.connection(org, id);
    if (c.status === 'disconnected') throw Errors.invalidTransition(`MCP connection ${id} is disconnected`, c.status, []);
    const changes: McpConnectionChanges = {};
    if (dto.name !== undefined && dto.name !== c.name) {
      this.assertNameFree(org, dto.name, id);
      changes.name = dto.name;
    }
    if (dto.approval_mode !== undefined && dto.approval_mode !== c.approval_mode) changes.approval_mode = dto.approval_mode;
    if (dto.tool_approvals !== undefined && JSON.stringify(dto.tool_approvals) !== JSON.stringify(c.tool_approvals)) changes.tool_approvals = dto.tool_approvals;
    if (dto.approval_timeout_s !== undefined && dto.approval_timeout_s !== c.approval_timeout_s) changes.approval_timeout_s = dto.approval_timeout_s;
    if (dto.call_timeout_s !== undefined && dto.call_timeout_s !== c.call_timeout_s) changes.call_timeout_s = dto.call_timeout_s;

    let acknowledge: { name: string; hash: string | null }[] = [];
    if (dto.acknowledge_drift !== undefined) {
      const tools = new Map(this.reads.tools(org, id).map((t) => [t.name, t]));
      const names = dto.acknowledge_drift === 'all' ? [...tools.keys()] : dto.acknowledge_drift;
      const unknown = names.find((n) => !tools.has(n));
      if (unknown !== undefined) throw Errors.invalidField('acknowledge_drift', `the connection has no tool named '${unknown}'`);
      const open = this.reads.openDriftTools(org, id);
      acknowledge = [...new Set(names)]
        .filter((n) => open.has(n) || tools.get(n)!.drift_state === 'unacknowledged')
        .map((n) => ({ name: n, hash: tools.get(n)!.status === 'active' ? tools.get(n)!.hash : tools.get(n)!.approved_hash }));
    }
    if (Object.keys(changes).length === 0 && acknowledge.length === 0) return this.present(c);
    await this.uow.run(contextOf(auth, requestId), async (tx) => {
      const stream = McpStreams.connection(org, id);
      if (Object.keys(changes).length) tx.emit(stream, 'McpConnectionUpdated', { org_id: org, connection_id: id, changes, updated_by: auth.principal.id, at: tx.now }, c.revision);
      if (acknowledge.length) tx.emit(stream, 'McpDriftAcknowledged', { org_id: org, connection_id: id, tools: acknowledge, acknowledged_by: auth.principal.id, at: tx.now }, c.revision);
    });
    return this.present(this.connection(org, id));
  }

  async remove(auth: AuthContext, id: string, requestId: string) {
    const org = auth.org_id;
    const c = this.connection(org, id);
    if (c.status === 'disconnected') return { id, status: 'disconnected', disconnected_at: iso(c.disconnected_at) };
    const at = await this.uow.run(contextOf(auth, requestId), async (tx) => {
      tx.emit(McpStreams.connection(org, id), 'McpConnectionDisconnected', { org_id: org, connection_id: id, disconnected_by: auth.principal.id, at: tx.now }, c.revision);
      await this.approvals.stageCancel(tx, this.approvals.pendingOfConnection(org, id), 'connection_deleted');
      for (const t of this.reads.tools(org, id)) {
        const node = await tx.node(t.affordance_uid);
        if (node && node.tombstone_at === null) await tombstoneNode(tx, t.affordance_uid, { reason: 'mcp_connection_disconnected', cascade: false });
      }
      return tx.now;
    });
    // the record says disconnected now; OAuth tokens are revoked (best effort) and the secrets destroyed after it
    await this.oauth.revoke(await this.secrets.get(org, id).catch(() => null)).catch(() => undefined);
    await this.secrets.destroy(org, id).catch((err) => this.log.error(`could not destroy the secrets of MCP connection ${id}: ${(err as Error).message}`));
    return { id, status: 'disconnected', disconnected_at: iso(at) };
  }

  async runSync(auth: AuthContext, id: string, requestId: string) {
    const org = auth.org_id;
    const c = this.connection(org, id);
    if (c.status === 'pending_auth' || c.status === 'disconnected') throw Errors.invalidTransition(`MCP connection ${id} is ${c.status}; only active or error connections sync`, c.status, ['active', 'error']);
    const r = await this.sync.run(contextOf(auth, requestId), c);
    const after = await this.present(this.connection(org, id));
    if (!r.ok) throw new DomainError(502, 'mcp_sync_failed', `the MCP server failed during the sync (${r.error.code}): ${r.error.message}`, { connection: after });
    return { connection: after, sync: presentSync(r.sync) };
  }

  async reauthorize(auth: AuthContext, id: string, dto: ReauthorizeConnectionDto, requestId: string, origin: string) {
    const org = auth.org_id;
    const c = this.connection(org, id);
    if (c.status === 'disconnected') throw Errors.invalidTransition(`MCP connection ${id} is disconnected`, c.status, []);
    const currentType = (c.auth as { type: string }).type;
    if (!dto.auth && currentType !== 'oauth') throw Errors.missingField('auth', 'auth is required to replace static credentials');
    if (!dto.auth || dto.auth.type === 'oauth') {
      const returnUrl = this.returnUrl(dto.return_url, origin);
      const redirectUri = `${this.oauth.baseUrl(origin)}/v1/mcp/oauth/callback`;
      const bag = (await this.secrets.get(org, id)) ?? {};
      const s = oauthStateOf(bag);
      const client = dto.auth ? await this.oauthClient(new URL(c.url), dto.auth as Extract<ConnectionAuthInput, { type: 'oauth' }>, redirectUri, origin) : s.client;
      if (!client) throw new DomainError(422, 'mcp_check_failed', 'the connection has no registered OAuth client', { checks: [{ name: 'registration', status: 'fail', detail: 'reauthorize with auth {type:"oauth"}' }] });
      const started = await this.oauth.authorize(org, id, client, redirectUri, returnUrl);
      // a new client's tokens are not the old one's: replacing the client drops them
      const tokens = dto.auth ? {} : Object.fromEntries(Object.entries(bag).filter(([k]) => ['access_token', 'refresh_token', 'token_expires_at'].includes(k)));
      await this.secrets.put(org, id, { ...tokens, ...started.bag });
      const usable = !!tokens.access_token && (c.status === 'active' || c.status === 'error');
      await this.uow.run(contextOf(auth, requestId), async (tx) => {
        tx.emit(McpStreams.connection(org, id), 'McpAuthorizationStarted', { org_id: org, connection_id: id, auth: this.oauthAuthView(client, tokens.access_token ? tokens : null), expires_at: started.expiresAt, status: usable ? (c.status as 'active') : 'pending_auth', at: tx.now }, c.revision);
      });
      return this.present(this.connection(org, id));
    }
    const staticAuth = dto.auth;
    const checked = await this.checkServer(new URL(c.url), staticAuth);
    const previous = await this.secrets.get(org, id);
    await this.secrets.put(org, id, this.credentials.staticBag(staticAuth));
    try {
      await this.uow.run(contextOf(auth, requestId), async (tx) => {
        const current = this.reads.connection(org, id) ?? c;
        tx.emit(McpStreams.connection(org, id), 'McpCredentialsReplaced', { org_id: org, connection_id: id, auth: staticAuthView(staticAuth), replaced_by: auth.principal.id, at: tx.now }, current.revision);
        await this.sync.stageSync(tx, { ...this.sync.targetOf(current), status: 'active' }, fetchedOf(checked), tx.now);
      });
    } catch (err) {
      if (previous) await this.secrets.put(org, id, previous).catch(() => undefined);
      throw err;
    }
    return this.present(this.connection(org, id));
  }
}
