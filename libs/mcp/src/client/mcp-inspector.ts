import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConnectionAuthInput, ScreenedTool, ToolWarning, screenTools, staticAuthHeaders } from '@strata/domain/mcp';
import { INITIALIZE_REVISIONS, STATELESS_REVISION } from '../server/protocol-versions';
import { AddressNotAllowedError, GuardedFetch, NetworkError } from './guarded-fetch';

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
  /** seconds, fractional (the injected clock) */
  now: () => number;
}

const ACCEPT = 'application/json, text/event-stream';
const MAX_PAGES = 50;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON-RPC answer, JSON or one SSE message. */
async function readRpc(res: Response): Promise<Record<string, unknown> | null> {
  const text = await res.text();
  const ct = res.headers.get('content-type') ?? '';
  const payload = ct.includes('text/event-stream')
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .find((l) => l.startsWith('{'))
    : text;
  if (!payload) return null;
  try {
    const v = JSON.parse(payload) as unknown;
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

function failureDetail(err: unknown): string {
  if (err instanceof NetworkError) return err.message;
  if (err instanceof StreamableHTTPError) return `HTTP ${err.code ?? '?'}: ${err.message}`;
  return (err as Error)?.message ?? String(err);
}

function isAuthRefusal(err: unknown): boolean {
  if (err instanceof UnauthorizedError) return true;
  if (err instanceof StreamableHTTPError) return err.code === 401 || err.code === 403;
  return /\b(401|403)\b/.test(String((err as Error)?.message ?? ''));
}

/** One MCP conversation, stateless (2026-07-28) or through an SDK client session. */
interface Session {
  protocolVersion: string;
  serverInfo: Record<string, unknown> | null;
  capabilities: Record<string, unknown> | null;
  instructions: string | null;
  listTools(cursor: string | undefined): Promise<{ tools: unknown[]; nextCursor?: string }>;
  close(): Promise<void>;
}

/**
 * Talks to an MCP server the way a connection will (REFERENCE §15.5, §15.6): reachability,
 * authentication discovery without credentials, the protocol negotiation with them, and the
 * screened tool list. Nothing is saved; secrets never leave the request headers.
 */
export class McpInspector {
  constructor(private readonly opts: InspectOptions) {}

  async inspect(url: URL, auth: ConnectionAuthInput): Promise<InspectResult> {
    const started = this.opts.now();
    const checks: Check[] = [];
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
      result.ok = !checks.some((c) => c.status === 'fail');
      result.duration_ms = Math.max(0, Math.round((this.opts.now() - started) * 1000));
      return result;
    };

    // reachable + auth_discovery: one request without credentials
    let bare: Response;
    try {
      bare = await this.post(url, { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: this.meta() } }, { 'mcp-protocol-version': STATELESS_REVISION });
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      checks.push({ name: 'reachable', status: 'fail', detail: failureDetail(err) });
      return finish();
    }
    await bare.text().catch(() => undefined);
    checks.push({ name: 'reachable', status: 'pass', detail: `${url.protocol === 'https:' ? 'TLS connection' : 'connection'} to ${url.host} established` });
    checks.push(await this.discoverAuth(url, bare, result.auth));

    // protocol, with the credentials
    const creds = staticAuthHeaders(auth);
    let session: Session;
    try {
      session = await this.negotiate(url, creds);
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
      const raw = await this.listAll(session);
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

  private post(url: URL, body: unknown, headers: Record<string, string>): Promise<Response> {
    return this.opts.fetch(url, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
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

  /** `server/discover` at 2026-07-28 first; any other answer falls back to `initialize`. */
  private async negotiate(url: URL, creds: Record<string, string>): Promise<Session> {
    const res = await this.post(url, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: this.meta() } }, { ...creds, 'mcp-protocol-version': STATELESS_REVISION });
    if (res.status === 401 || res.status === 403) {
      await res.text().catch(() => undefined);
      throw new StreamableHTTPError(res.status, 'credentials refused');
    }
    if (res.status >= 300 && res.status < 400) throw new Error(`the server answered a redirect (${res.status}); MCP requests do not follow redirects`);
    const rpc = res.ok ? await readRpc(res) : (await res.text().catch(() => undefined), null);
    const discovered = rpc && isObject(rpc.result) ? rpc.result : null;
    if (discovered && Array.isArray(discovered.supportedVersions) && discovered.supportedVersions.includes(STATELESS_REVISION)) {
      return {
        protocolVersion: STATELESS_REVISION,
        serverInfo: isObject(discovered.serverInfo) ? discovered.serverInfo : null,
        capabilities: isObject(discovered.capabilities) ? discovered.capabilities : null,
        instructions: typeof discovered.instructions === 'string' ? discovered.instructions : null,
        listTools: async (cursor) => {
          const r = await this.post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { ...(cursor ? { cursor } : {}), _meta: this.meta() } }, { ...creds, 'mcp-protocol-version': STATELESS_REVISION });
          const body = await readRpc(r);
          if (!body || !isObject(body.result)) throw new Error(`tools/list answered HTTP ${r.status} without a result`);
          return body.result as { tools: unknown[]; nextCursor?: string };
        },
        close: async () => undefined,
      };
    }
    const transport = new StreamableHTTPClientTransport(url, { fetch: this.opts.fetch as never, requestInit: { headers: creds, redirect: 'error' } });
    // no client capabilities: sampling, elicitation and roots requests are answered -32601
    const client = new Client({ name: 'strata', version: this.opts.version }, { capabilities: {} });
    await client.connect(transport);
    const version = transport.protocolVersion ?? '';
    if (!(INITIALIZE_REVISIONS as readonly string[]).includes(version)) {
      await client.close().catch(() => undefined);
      throw new Error(`the server speaks MCP ${version || 'of an unknown revision'}; Strata accepts ${INITIALIZE_REVISIONS.join(', ')}`);
    }
    return {
      protocolVersion: version,
      serverInfo: (client.getServerVersion() as Record<string, unknown> | undefined) ?? null,
      capabilities: (client.getServerCapabilities() as Record<string, unknown> | undefined) ?? null,
      instructions: client.getInstructions() ?? null,
      listTools: async (cursor) => (await client.listTools(cursor ? { cursor } : undefined)) as { tools: unknown[]; nextCursor?: string },
      close: async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      },
    };
  }

  private async listAll(session: Session): Promise<unknown[]> {
    const deadline = this.opts.now() + this.opts.listTimeoutMs / 1000;
    const all: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await session.listTools(cursor);
      if (!Array.isArray(res.tools)) throw new Error('tools/list answered without a tools array');
      all.push(...res.tools);
      cursor = typeof res.nextCursor === 'string' && res.nextCursor !== '' ? res.nextCursor : undefined;
      if (!cursor) break;
      if (this.opts.now() > deadline) throw new NetworkError('tools/list took longer than its deadline', 'timeout');
    }
    return all;
  }
}
