import { Inject, Injectable } from '@nestjs/common';
import { decideUpdateNode, GraphChanges } from '@strata/domain/graph';
import {
  KnownTool,
  MAX_TOOLS,
  McpConnectionStatus,
  McpDrift,
  McpErrorInfo,
  McpStreams,
  McpToolDef,
  ToolWarning,
  affordanceFor,
  diffTools,
  redactSecrets,
  screenTools,
} from '@strata/domain/mcp';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ConnectionView } from '@strata/projections/mcp/mcp-read-model';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { createNode, restoreNode, tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { AddressNotAllowedError } from '../client/guarded-fetch';
import { failureCode, failureDetail, isObject, listAllTools } from '../client/mcp-session';
import { ConnectionCredentials } from './connection-credentials';
import { McpNetwork } from './mcp-network';
import { SyncFailure } from './sync-failure';

/** What a server listed, screened, with what its session said about itself. */
export interface FetchedTools {
  protocol_version: string;
  server_info: Record<string, unknown> | null;
  instructions: string | null;
  capabilities: Record<string, unknown> | null;
  tools: McpToolDef[];
  warnings: ToolWarning[];
  /** the server announced `notifications/tools/list_changed` meanwhile */
  list_changed: boolean;
}


/** The connection a sync is staged for. */
export interface SyncTarget {
  org: string;
  connection_id: string;
  name: string;
  /** no earlier successful sync: this one is the baseline and records no drift */
  baseline: boolean;
  status: McpConnectionStatus;
  last_error: McpErrorInfo | null;
}

export interface SyncSummary {
  id: string;
  started_at: number;
  completed_at: number;
  tools_count: number;
  added: string[];
  changed: string[];
  removed: string[];
  drift_events: (McpDrift & { connection_id: string; tool_name: string; sync_id: string; detected_at: number })[];
}

/**
 * Sync (REFERENCE §15.8): lists a server's tools under the §15.5 limits, then stages in one
 * unit of work what changed — the tool events, the drift, the Affordances that mirror the
 * tools in the action layer, and the connection's status.
 */
@Injectable()
export class ConnectionSync {
  constructor(
    private readonly network: McpNetwork,
    private readonly reads: McpReadModel,
    private readonly credentials: ConnectionCredentials,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The target a connection's sync is staged for, as the read model holds it now. */
  targetOf(c: ConnectionView): SyncTarget {
    return { org: c.org_id, connection_id: c.id, name: c.name, baseline: c.last_sync_id === null, status: c.status as McpConnectionStatus, last_error: c.last_error };
  }

  /**
   * A sync of a saved connection, start to end: the server is asked outside the unit of work,
   * then what it said (or how it failed) is recorded in one. The caller checks the state first.
   */
  async run(ctx: CommandContext, connection: ConnectionView): Promise<{ ok: true; sync: SyncSummary } | { ok: false; error: McpErrorInfo }> {
    const startedAt = this.clock.now();
    const url = new URL(connection.url);
    let fetched: FetchedTools | null = null;
    let failure: SyncFailure | null = null;
    const attempt = async (forceRefresh: boolean) => {
      try {
        fetched = await this.fetchTools(url, await this.credentials.headers(connection.org_id, connection.id, { forceRefresh }));
        failure = null;
      } catch (err) {
        if (err instanceof AddressNotAllowedError) failure = new SyncFailure('unreachable', err.message);
        else if (err instanceof SyncFailure) failure = err;
        else throw err;
      }
    };
    await attempt(false);
    // OAuth: a 401 gets one refresh, then counts
    if (failure && (failure as SyncFailure).code === 'auth_failed' && (await this.credentials.canRefresh(connection.org_id, connection.id))) await attempt(true);
    return this.uow.run(ctx, async (tx) => {
      const current = this.reads.connection(connection.org_id, connection.id) ?? connection;
      const target = this.targetOf(current);
      if (failure) return { ok: false as const, error: this.stageFailure(tx, target, failure) };
      return { ok: true as const, sync: await this.stageSync(tx, target, fetched!, startedAt) };
    });
  }

  /** Opens a session, lists every page, screens. Throws SyncFailure (or AddressNotAllowedError). */
  async fetchTools(url: URL, headers: Record<string, string>): Promise<FetchedTools> {
    // a server's error may echo the request: what is recorded of it never carries the credentials
    const detail = (err: unknown) => redactSecrets(failureDetail(err), Object.values(headers));
    let session;
    try {
      session = await this.network.open(url, headers);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      throw new SyncFailure(failureCode(err), detail(err));
    }
    try {
      if (!session.capabilities || !isObject(session.capabilities.tools)) throw new SyncFailure('protocol_error', 'the server does not declare the tools capability');
      const raw = await listAllTools(session, this.network.limits.listMs, this.network.limits.maxPages);
      if (raw.length > MAX_TOOLS) throw new SyncFailure('too_many_tools', `the server lists ${raw.length} tools; a connection takes at most ${MAX_TOOLS}`);
      const { tools, warnings } = screenTools(raw);
      return {
        protocol_version: session.protocolVersion,
        server_info: session.serverInfo,
        instructions: session.instructions,
        capabilities: session.capabilities,
        tools,
        warnings,
        list_changed: session.listChanged,
      };
    } catch (err) {
      if (err instanceof SyncFailure || err instanceof AddressNotAllowedError) throw err;
      throw new SyncFailure(failureCode(err), `tools/list failed: ${detail(err)}`);
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  /** Stages a successful sync: tool and drift events, Affordances, `active` again after an error. */
  async stageSync(tx: GraphTx, target: SyncTarget, fetched: FetchedTools, startedAt: number): Promise<SyncSummary> {
    const { org, connection_id } = target;
    const stream = McpStreams.connection(org, connection_id);
    const syncId = this.ids.uuid();
    const at = tx.now;
    const rows = target.baseline ? [] : this.reads.tools(org, connection_id);
    const known: KnownTool[] = rows.map((r) => ({ def: r.def, status: r.status }));
    const affordanceOf = new Map(rows.map((r) => [r.name, r.affordance_uid]));
    const diff = diffTools(known, fetched.tools, target.baseline, () => this.ids.uuid());
    const base = { org_id: org, connection_id, sync_id: syncId, at };

    for (const a of diff.added) {
      let uid = affordanceOf.get(a.tool.name);
      const mirror = affordanceFor(target.name, a.tool);
      if (uid && a.restored) {
        await restoreNode(tx, uid, 'mcp_tool_restored');
        await this.refreshAffordance(tx, uid, mirror);
      } else {
        uid = createNode(tx, { node_type: 'Affordance', label: mirror.label, props: mirror.props }).uid;
      }
      tx.emit(stream, 'McpToolAdded', { ...base, tool: a.tool, affordance_uid: uid, drift: a.drift });
    }
    for (const c of diff.changed) {
      const uid = affordanceOf.get(c.tool.name);
      if (uid) await this.refreshAffordance(tx, uid, affordanceFor(target.name, c.tool));
      tx.emit(stream, 'McpToolChanged', { ...base, tool: c.tool, drift: c.drift });
    }
    for (const r of diff.removed) {
      const uid = affordanceOf.get(r.name);
      if (uid && (await tx.node(uid))) await tombstoneNode(tx, uid, { reason: 'mcp_tool_removed', cascade: false });
      tx.emit(stream, 'McpToolRemoved', { ...base, name: r.name, drift: r.drift });
    }
    // a renamed connection relabels its unchanged tools' Affordances on its next sync
    for (const t of diff.unchanged) {
      const uid = affordanceOf.get(t.name);
      if (uid) await this.refreshAffordance(tx, uid, affordanceFor(target.name, t));
    }
    const summary = {
      added: diff.added.map((a) => a.tool.name),
      changed: diff.changed.map((c) => c.tool.name),
      removed: diff.removed.map((r) => r.name),
    };
    tx.emit(stream, 'McpConnectionSynced', {
      ...base,
      started_at: startedAt,
      completed_at: at,
      tools_count: fetched.tools.length,
      ...summary,
      baseline: target.baseline,
      protocol_version: fetched.protocol_version,
      server_info: fetched.server_info,
      instructions: fetched.instructions,
    });
    if (target.status === 'error') tx.emit(stream, 'McpConnectionStatusChanged', { org_id: org, connection_id, from: 'error', to: 'active', error: null, at });
    const drift = [
      ...diff.added.flatMap((a) => (a.drift ? [{ ...a.drift, tool_name: a.tool.name }] : [])),
      ...diff.changed.map((c) => ({ ...c.drift, tool_name: c.tool.name })),
      ...diff.removed.map((r) => ({ ...r.drift, tool_name: r.name })),
    ];
    return {
      id: syncId,
      started_at: startedAt,
      completed_at: at,
      tools_count: fetched.tools.length,
      ...summary,
      drift_events: drift.map((d) => ({ ...d, connection_id, sync_id: syncId, detected_at: at })),
    };
  }

  /** Stages the status a failure leaves (§15.3); nothing when it says nothing new. */
  stageFailure(tx: GraphTx, target: SyncTarget, failure: SyncFailure): McpErrorInfo {
    const error: McpErrorInfo = { code: failure.code, message: failure.message.slice(0, 500), at: tx.now };
    const to: McpConnectionStatus = target.status === 'pending_auth' ? 'pending_auth' : 'error';
    tx.emit(McpStreams.connection(target.org, target.connection_id), 'McpConnectionStatusChanged', { org_id: target.org, connection_id: target.connection_id, from: target.status, to, error, at: tx.now });
    return error;
  }

  /** Only syncs change an mirror's label and props; no version when nothing differs. */
  private async refreshAffordance(tx: GraphTx, uid: string, mirror: { label: string; props: Record<string, unknown> }): Promise<void> {
    const node = await tx.node(uid);
    if (!node || node.tombstone_at !== null) return;
    const props = node.props as Record<string, unknown>;
    const same = node.label === mirror.label && Object.entries(mirror.props).every(([k, v]) => JSON.stringify(props[k]) === JSON.stringify(v));
    if (same) return;
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideUpdateNode(node, { label: mirror.label, props: mirror.props }, tx.write), 'mcp_sync'));
  }
}
