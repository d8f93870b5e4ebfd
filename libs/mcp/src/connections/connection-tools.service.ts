import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError, Errors } from '@strata/domain/errors';
import { MAX_RESULT_CHARS, McpApprovalMode, McpStreams, modeRequiresApproval, modelToolName, redactSecrets, visibleText } from '@strata/domain/mcp';
import { CLOCK, Clock } from '@strata/domain/time';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ConnectionView, McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { AddressNotAllowedError } from '../client/guarded-fetch';
import { McpSession, failureCode, failureDetail, isAuthRefusal } from '../client/mcp-session';
import { ConnectionCredentials } from './connection-credentials';
import { ConnectionSync } from './connection-sync.service';
import { McpNetwork } from './mcp-network';
import { SyncFailure } from './sync-failure';

/** A tool an agent may be offered: what a model sees of it, and what governance needs. */
export interface ConnectionTool {
  connection_id: string;
  connection_name: string;
  name: string;
  /** `mcp__<slug>__<name>`, the name a model calls it by */
  model_name: string;
  title: string | null;
  /** invisible characters stripped */
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
  hash: string;
  drift_state: 'clean' | 'unacknowledged';
  /** the connection's approval mode's verdict now, before policies (REFERENCE §15.10) */
  requires_approval: boolean;
  affordance_uid: string;
  warnings: string[];
}

/** The outcome of one `tools/call`. A server failure is an outcome, not a throw: the model gets a tool error. */
export type ToolCallOutcome =
  | {
      ok: true;
      /** the server's `isError` */
      is_error: boolean;
      /** the text given to a model: text items joined, else the structured content; ≤ 50,000 characters, then `…[truncated]` */
      text: string;
      structured: Record<string, unknown> | null;
      content: unknown[];
    }
  | { ok: false; error: { code: 'timeout' | 'unreachable' | 'protocol_error' | 'auth_failed'; message: string } };

function systemContext(org: string): CommandContext {
  return { org, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: 'mcp-connection-tools' };
}

/** Text for a model: at most 50,000 characters. */
export function textForModel(content: unknown[], structured: Record<string, unknown> | null): string {
  const texts = content.filter((c): c is { type: 'text'; text: string } => typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string').map((c) => c.text);
  const text = texts.length ? texts.join('\n') : structured ? JSON.stringify(structured) : '';
  return text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) + '…[truncated]' : text;
}

/**
 * MCP tools for another area's agents (REFERENCE §15.3, §15.5, §15.8): the active tools of an
 * active connection (synced first when the last sync is over an hour old), and one call of one
 * tool in a short session of its own under the connection's `call_timeout_s`. A failing call
 * moves the connection to `error`; a `list_changed` notification triggers a sync afterwards.
 * Approvals and policies are the caller's to apply (`requires_approval` is the mode's verdict).
 */
@Injectable()
export class ConnectionTools {
  private readonly log = new Logger('ConnectionTools');

  constructor(
    private readonly reads: McpReadModel,
    private readonly network: McpNetwork,
    private readonly credentials: ConnectionCredentials,
    private readonly sync: ConnectionSync,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private activeConnection(org: string, connectionId: string): ConnectionView {
    const c = this.reads.connection(org, connectionId);
    if (!c) throw Errors.notFound(`MCP connection ${connectionId} not found`, { field: 'connection_id', uid: connectionId });
    if (c.status !== 'active') throw Errors.invalidTransition(`MCP connection ${connectionId} is ${c.status}; only active connections offer tools`, c.status, ['active']);
    return c;
  }

  /** The connection's active tools, by name. 404 unknown connection; 409 `invalid_transition` unless active. */
  async listTools(org: string, connectionId: string): Promise<ConnectionTool[]> {
    let c = this.activeConnection(org, connectionId);
    if (c.last_sync_at === null || this.clock.now() - c.last_sync_at > this.network.limits.staleAfterS) {
      await this.sync.run(systemContext(org), c);
      c = this.activeConnection(org, connectionId);
    }
    return this.reads
      .tools(org, connectionId)
      .filter((t) => t.status === 'active')
      .map((t) => ({
        connection_id: c.id,
        connection_name: c.name,
        name: t.name,
        model_name: modelToolName(c.slug, t.name),
        title: t.def.title === null ? null : visibleText(t.def.title),
        description: visibleText(t.def.description ?? ''),
        input_schema: t.def.input_schema ?? { type: 'object' },
        output_schema: t.def.output_schema,
        annotations: t.def.annotations,
        hash: t.hash,
        drift_state: t.drift_state,
        requires_approval: modeRequiresApproval(c.approval_mode as McpApprovalMode, c.tool_approvals as Record<string, 'always' | 'never'>, t),
        affordance_uid: t.affordance_uid,
        warnings: t.def.warnings,
      }));
  }

  /**
   * Calls one tool. 404 unknown connection; 409 `invalid_transition` unless active; 409
   * `tool_unavailable` for a removed or unknown tool. Server failures come back as `ok:false`
   * (and the connection moves to `error`). `signal` aborts the call: the server is sent
   * `notifications/cancelled` and the signal's reason is thrown, the connection untouched.
   */
  async callTool(org: string, connectionId: string, toolName: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallOutcome> {
    const c = this.activeConnection(org, connectionId);
    const tool = this.reads.tool(org, connectionId, toolName);
    if (!tool || tool.status !== 'active') throw new DomainError(409, 'tool_unavailable', `tool ${toolName} is not offered by MCP connection ${c.name}`, { connection_id: connectionId, tool_name: toolName });
    const sent: string[] = [];
    const attempt = async (forceRefresh: boolean): Promise<ToolCallOutcome> => {
      let session: McpSession | null = null;
      try {
        const headers = await this.credentials.headers(org, connectionId, { forceRefresh });
        sent.push(...Object.values(headers));
        session = await this.network.open(new URL(c.url), headers);
        const r = await session.callTool(toolName, args, this.network.limits.callTimeoutMs(c.call_timeout_s), signal);
        const content = Array.isArray(r.content) ? r.content : [];
        const structured = r.structuredContent && typeof r.structuredContent === 'object' ? r.structuredContent : null;
        if (session.listChanged) void this.syncQuietly(org, connectionId);
        return { ok: true, is_error: r.isError === true, text: textForModel(content, structured), structured, content };
      } finally {
        await session?.close().catch(() => undefined);
      }
    };
    try {
      try {
        return await attempt(false);
      } catch (err) {
        // OAuth: a 401 mid-call gets one refresh and the call one retry (the server refused it before running it)
        if (!signal?.aborted && isAuthRefusal(err) && (await this.credentials.canRefresh(org, connectionId))) return await attempt(true);
        throw err;
      }
    } catch (err) {
      // an interrupt is the caller's, not a failure of the server
      if (signal?.aborted) throw signal.reason;
      const code = err instanceof AddressNotAllowedError ? 'unreachable' : err instanceof SyncFailure && err.code !== 'too_many_tools' ? err.code : failureCode(err);
      // a server's error may echo the request: what is recorded of it never carries the credentials
      const message = redactSecrets(failureDetail(err), sent).slice(0, 500);
      await this.recordFailure(org, c, code, message);
      return { ok: false, error: { code, message } };
    }
  }

  private async recordFailure(org: string, c: ConnectionView, code: string, message: string): Promise<void> {
    await this.uow
      .run(systemContext(org), async (tx) => {
        tx.emit(McpStreams.connection(org, c.id), 'McpConnectionStatusChanged', { org_id: org, connection_id: c.id, from: 'active', to: 'error', error: { code, message, at: tx.now }, at: tx.now });
      })
      .catch((err) => this.log.warn(`could not record the failure of MCP connection ${c.id}: ${(err as Error).message}`));
  }

  private async syncQuietly(org: string, connectionId: string): Promise<void> {
    try {
      const c = this.reads.connection(org, connectionId);
      if (c && (c.status === 'active' || c.status === 'error')) await this.sync.run(systemContext(org), c);
    } catch (err) {
      this.log.warn(`sync after tools/list_changed failed for MCP connection ${connectionId}: ${(err as Error).message}`);
    }
  }
}
