import { Injectable } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { ToolSpec } from '@strata/ai/llm/chat-model.port';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { ASK_USER_TOOL, AgentRecord } from '@strata/domain/agents';
import { DomainError } from '@strata/domain/errors';
import { STRATA_TOOL_BY_NAME, inputSchemaOf, routeCallsFor } from '@strata/mcp/server';

/** What one built-in tool call gave back. */
export interface ToolOutcome {
  /** `denied`: governance refused the call, it never ran */
  status: 'ok' | 'error' | 'denied';
  result: unknown;
  error: { code: string; message: string } | null;
  /** uids of nodes the call created (Execution → ProducesNode) */
  created: string[];
}

const ASK_USER_SPEC: ToolSpec = {
  name: ASK_USER_TOOL,
  description: 'Ask the person you work for a question and wait for the answer. Use it when a decision or missing fact is needed; offer options when the answer is one of a few.',
  inputSchema: {
    type: 'object',
    properties: { question: { type: 'string' }, options: { type: 'array', items: { type: 'string' } } },
    required: ['question'],
  },
};

/**
 * The built-in graph tools (REFERENCE §15.11) as an agent uses them: each call goes through
 * the route it names, in-process, as principal `agent:<id>` inside the agent's scope (a lent
 * credential, REFERENCE §16.4), so every guard, validation and write rule of the route holds.
 */
@Injectable()
export class GraphTools {
  private resolver: CredentialResolver | null = null;
  /** each tool's input schema, made once: a step offers the agent's whole tool list */
  private readonly schemas = new Map<string, ToolSpec>();

  constructor(
    private readonly adapter: HttpAdapterHost,
    private readonly modules: ModuleRef,
  ) {}

  /** The tools offered to the model: the agent's built-in ones, `ask_user` among them when listed. */
  specs(agent: AgentRecord): ToolSpec[] {
    const out: ToolSpec[] = [];
    for (const name of agent.tools) {
      if (name === ASK_USER_TOOL) out.push(ASK_USER_SPEC);
      const def = STRATA_TOOL_BY_NAME.get(name);
      if (!def) continue;
      let spec = this.schemas.get(name);
      if (!spec) this.schemas.set(name, (spec = { name: def.name, description: def.description, inputSchema: inputSchemaOf(def) }));
      out.push(spec);
    }
    return out;
  }

  isBuiltin(agent: AgentRecord, name: string): boolean {
    return agent.tools.includes(name) && STRATA_TOOL_BY_NAME.has(name);
  }

  private credentials(): CredentialResolver {
    // the resolver belongs to the accounts area's module; it is looked up, not imported
    const found = this.resolver ?? this.modules.get<CredentialResolver, CredentialResolver>(CredentialResolver, { strict: false });
    this.resolver = found;
    return found;
  }

  /** `approvalId`: the approved tool approval the call runs under (a policy asked for it, REFERENCE §15.10) */
  async call(agent: AgentRecord, plan: string, name: string, args: Record<string, unknown>, approvalId: string | null = null): Promise<ToolOutcome> {
    const def = STRATA_TOOL_BY_NAME.get(name)!;
    let call;
    try {
      call = routeCallsFor(def, args);
    } catch (err) {
      if (err instanceof DomainError) return { status: 'error', result: err.toBody(), error: { code: err.code, message: err.message }, created: [] };
      throw err;
    }
    const lent = this.credentials().delegate({
      org_id: agent.org_id,
      principal: { kind: 'agent', id: agent.id },
      credential: 'api_key',
      user_id: null,
      api_key_id: null,
      role: null,
      scopes: ['read', 'write'],
      bound_agent_id: agent.id,
      space_uids: agent.scope.space_uids ?? null,
      project_uids: agent.scope.project_uids ?? null,
      plan,
      tool_call: { approval_id: approvalId },
    });
    try {
      const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
      const query = call.query && Object.keys(call.query).length ? `?${new URLSearchParams(call.query).toString()}` : '';
      const res = await fastify.inject({
        method: call.method,
        url: call.path + query,
        headers: { authorization: `Bearer ${lent.token}`, ...(call.body ? { 'content-type': 'application/json' } : {}) },
        payload: call.body ? JSON.stringify(call.body) : undefined,
      });
      let body: unknown = null;
      try {
        body = res.body === '' ? null : JSON.parse(res.body);
      } catch {
        body = { error: 'the route answered a body that is not JSON', code: 'internal_error' };
      }
      if (res.statusCode >= 400) {
        const b = (body ?? {}) as { code?: string; error?: string; policy_uid?: string; policy_name?: string };
        // a policy's deny is the tool call's governance refusal (REFERENCE §16.4)
        if (b.code === 'policy_denied')
          return { status: 'denied', result: { code: 'denied_by_policy', policy_uid: b.policy_uid ?? null }, error: { code: 'denied_by_policy', message: `policy ${b.policy_name ?? b.policy_uid} denies this call` }, created: [] };
        return { status: 'error', result: body, error: { code: b.code ?? 'tool_error', message: b.error ?? `status ${res.statusCode}` }, created: [] };
      }
      return { status: 'ok', result: body, error: null, created: createdUids(body) };
    } finally {
      lent.end();
    }
  }
}

/** The node uids a write route reports as created (a node, or a batch's nodes). */
function createdUids(body: unknown): string[] {
  if (!body || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  const out: string[] = [];
  const node = (b.node ?? b) as Record<string, unknown>;
  if (typeof node.uid === 'string' && typeof node.node_type === 'string' && node.version === 1) out.push(node.uid);
  if (Array.isArray(b.nodes)) for (const n of b.nodes) if (n && typeof n === 'object' && typeof (n as { uid?: unknown }).uid === 'string') out.push((n as { uid: string }).uid);
  return [...new Set(out)];
}
