import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { ConnectionAuthInput, ScreenedTool, ToolWarning, redactSecrets, screenTools, staticAuthHeaders } from '@strata/domain/mcp';
import { STATELESS_REVISION } from '../server/protocol-versions';
import { AddressNotAllowedError, GuardedFetch, NetworkError } from './guarded-fetch';
import { foreignResourceRefusal } from './protected-resource';
import { ACCEPT, McpSession, failureDetail, isAuthRefusal, isObject, listAllTools, openMcpSession, withTimeout } from './mcp-session';

export type CheckName = 'reachable' | 'auth_discovery' | 'protocol' | 'tools';
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';
export interface Check {
  name: CheckName;
  status: CheckStatus;
  detail: string;
}

export interface AuthDiscovery {
  required: boolean;
  type: 'none' | 'bearer' | 'oauth';
  credentials_accepted: boolean | null;
  resource_metadata_url: string | null;
  resource: string | null;
  authorization_servers: string[];
  scopes_supported: string[];
  registration: string[];
  pkce_s256: boolean | null;
}

export interface InspectResult {
  ok: boolean;
  url: string;
  duration_ms: number;
  protocol_version: string | null;
  server_info: Record<string, unknown> | null;
  capabilities: Record<string, unknown> | null;
  instructions: string | null;
  auth: AuthDiscovery;
  tools: (Omit<ScreenedTool, never>)[];
  checks: Check[];
  warnings: ToolWarning[];
}

export interface InspectOptions {
  fetch: GuardedFetch;
  /** Strata's version, sent as clientInfo */
  version: string;
  /** the `tools/list` deadline, all pages */
  listTimeoutMs: number;
  /** `tools/list` pages followed */
  maxPages: number;
  /** the whole inspection: past it the check under way fails and the rest are skipped */
  deadlineMs: number;
  /** the discover/initialize deadline */
  handshakeTimeoutMs: number;
  /** seconds, fractional (the injected clock) */
  now: () => number;
}

/**
 * Talks to an MCP server the way a connection will (REFERENCE §15.5, §15.6): reachability,
 * authentication discovery without credentials, the protocol negotiation with them, and the
 * screened tool list. Nothing is saved; secrets never leave the request headers.
 */
export class McpInspector {
  constructor(private readonly opts: InspectOptions) {}

  async inspect(url: URL, auth: ConnectionAuthInput): Promise<InspectResult> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NetworkError(`the inspection took longer than ${this.opts.deadlineMs / 1000} s`, 'timeout')), this.opts.deadlineMs);
    });
    deadline.catch(() => undefined);
    try {
      return await this.run(url, auth, deadline);
    } finally {
      clearTimeout(timer);
    }
  }

  /** `work` unless the deadline passes first; what it gives after that is closed (`dispose`). */
  private within<T>(work: Promise<T>, deadline: Promise<never>, dispose?: (late: T) => unknown): Promise<T> {
    let lost = false;
    if (dispose) void work.then((v) => lost && dispose(v), () => undefined);
    return Promise.race([work, deadline]).catch((err) => {
      lost = true;
      throw err;
    });
  }

  private async run(url: URL, auth: ConnectionAuthInput, deadline: Promise<never>): Promise<InspectResult> {
    const started = this.opts.now();
    const checks: Check[] = [];
    const creds = staticAuthHeaders(auth);
    const result: InspectResult = {
      ok: false,
      url: url.toString(),
      duration_ms: 0,
      protocol_version: null,
      server_info: null,
      capabilities: null,
      instructions: null,
      auth: { required: false, type: 'none', credentials_accepted: null, resource_metadata_url: null, resource: null, authorization_servers: [], scopes_supported: [], registration: [], pkce_s256: null },
      tools: [],
      checks,
      warnings: [],
    };
    const finish = () => {
      for (const name of ['reachable', 'auth_discovery', 'protocol', 'tools'] as CheckName[]) if (!checks.some((c) => c.name === name)) checks.push({ name, status: 'skip', detail: 'an earlier check failed' });
      // a server's error may echo the request: the details never carry the credentials sent
      for (const c of checks) c.detail = redactSecrets(c.detail, Object.values(creds));
      result.ok = !checks.some((c) => c.status === 'fail');
      result.duration_ms = Math.max(0, Math.round((this.opts.now() - started) * 1000));
      return result;
    };

    // reachable + auth_discovery: one request without credentials
    let bare: Response;
    try {
      // a server/discover, under the handshake deadline
      const probe = withTimeout((signal) => this.post(url, { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: this.meta() } }, { 'mcp-protocol-version': STATELESS_REVISION }, signal), this.opts.handshakeTimeoutMs, 'server/discover');
      bare = await this.within(probe, deadline, (r) => r.body?.cancel());
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      checks.push({ name: 'reachable', status: 'fail', detail: failureDetail(err) });
      return finish();
    }
    await bare.text().catch(() => undefined);
    checks.push({ name: 'reachable', status: 'pass', detail: `${url.protocol === 'https:' ? 'TLS connection' : 'connection'} to ${url.host} established` });
    try {
      const discovered = await this.within(this.discoverAuth(url, bare, result.auth), deadline);
      checks.push(discovered);
      if (discovered.status === 'fail') return finish();
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      checks.push({ name: 'auth_discovery', status: 'fail', detail: failureDetail(err) });
      return finish();
    }

    // protocol, with the credentials
    let session: McpSession;
    try {
      session = await this.within(this.openSession(url, creds), deadline, (late) => late.close().catch(() => undefined));
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      const refused = isAuthRefusal(err);
      if (refused) result.auth.credentials_accepted = false;
      checks.push({ name: 'protocol', status: 'fail', detail: refused ? 'the server refused the credentials (401/403)' : failureDetail(err) });
      return finish();
    }
    result.auth.credentials_accepted = result.auth.required ? true : null;
    result.protocol_version = session.protocolVersion;
    result.server_info = session.serverInfo;
    result.capabilities = session.capabilities;
    result.instructions = session.instructions;
    checks.push({ name: 'protocol', status: 'pass', detail: `MCP ${session.protocolVersion} over Streamable HTTP` });

    try {
      if (!session.capabilities || !isObject(session.capabilities.tools)) {
        checks.push({ name: 'tools', status: 'fail', detail: 'the server does not declare the tools capability' });
        return finish();
      }
      const raw = await this.within(listAllTools(session, this.opts.listTimeoutMs, this.opts.maxPages), deadline);
      const { tools, warnings } = screenTools(raw);
      result.tools = tools;
      result.warnings = warnings;
      checks.push({ name: 'tools', status: warnings.length ? 'warn' : 'pass', detail: `${tools.length} tool(s)${warnings.length ? `, ${warnings.length} warning(s)` : ''}` });
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      checks.push({ name: 'tools', status: 'fail', detail: `tools/list failed: ${failureDetail(err)}` });
    } finally {
      await session.close().catch(() => undefined);
    }
    return finish();
  }

  private meta(): Record<string, unknown> {
    return {
      'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'strata', version: this.opts.version },
    };
  }

  private post(url: URL, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    return this.opts.fetch(url, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
  }

  private async discoverAuth(url: URL, res: Response, out: AuthDiscovery): Promise<Check> {
    if (res.status !== 401) return { name: 'auth_discovery', status: 'pass', detail: 'no authentication required' };
    out.required = true;
    out.type = 'bearer';
    const www = extractWWWAuthenticateParams(res);
    const fetchFn = this.opts.fetch as never;
    let prm: Record<string, unknown> | undefined;
    try {
      prm = (await discoverOAuthProtectedResourceMetadata(url, { resourceMetadataUrl: www.resourceMetadataUrl }, fetchFn)) as unknown as Record<string, unknown>;
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      prm = undefined;
    }
    if (!prm) return { name: 'auth_discovery', status: 'pass', detail: 'authentication required; no OAuth metadata, so a bearer token or headers' };
    out.resource_metadata_url = www.resourceMetadataUrl?.toString() ?? new URL('/.well-known/oauth-protected-resource' + (url.pathname === '/' ? '' : url.pathname), url).toString();
    out.resource = typeof prm.resource === 'string' ? prm.resource : null;
    // metadata for another resource is not used (nor the authorization servers it names): create refuses it too
    const foreign = foreignResourceRefusal(url, out.resource ?? undefined);
    if (foreign) return { name: 'auth_discovery', status: 'fail', detail: foreign };
    out.authorization_servers = Array.isArray(prm.authorization_servers) ? (prm.authorization_servers as string[]) : [];
    const scopes = new Set<string>(Array.isArray(prm.scopes_supported) ? (prm.scopes_supported as string[]) : []);
    if (www.scope) www.scope.split(' ').forEach((s) => s && scopes.add(s));
    let asm: Record<string, unknown> | undefined;
    if (out.authorization_servers[0]) {
      try {
        asm = (await discoverAuthorizationServerMetadata(out.authorization_servers[0], { fetchFn })) as unknown as Record<string, unknown>;
      } catch (err) {
        if (err instanceof AddressNotAllowedError) throw err;
        asm = undefined;
      }
    }
    if (!asm) return { name: 'auth_discovery', status: 'warn', detail: 'protected resource metadata found, but no authorization server metadata' };
    out.type = 'oauth';
    if (Array.isArray(asm.scopes_supported)) (asm.scopes_supported as string[]).forEach((s) => scopes.add(s));
    out.scopes_supported = [...scopes];
    out.registration = ['preregistered', ...(asm.client_id_metadata_document_supported === true ? ['client_metadata_document'] : []), ...(typeof asm.registration_endpoint === 'string' ? ['dynamic'] : [])];
    out.pkce_s256 = Array.isArray(asm.code_challenge_methods_supported) && (asm.code_challenge_methods_supported as string[]).includes('S256');
    return out.pkce_s256
      ? { name: 'auth_discovery', status: 'pass', detail: 'OAuth 2.1 (authorization code + PKCE S256)' }
      : { name: 'auth_discovery', status: 'warn', detail: 'the authorization server does not advertise PKCE S256' };
  }

  /** The session the checks run in (REFERENCE §15.5 negotiation). */
  openSession(url: URL, creds: Record<string, string>): Promise<McpSession> {
    return openMcpSession({ fetch: this.opts.fetch, version: this.opts.version, handshakeTimeoutMs: this.opts.handshakeTimeoutMs }, url, creds);
  }
}
