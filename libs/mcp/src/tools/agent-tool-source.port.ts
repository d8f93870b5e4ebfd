/**
 * Where the managed-agent runtime finds an agent's MCP tools (REFERENCE §16.4): the tools of
 * `active` connections whose Affordance the agent holds a live grant on, and a way to call
 * one. The runtime offers them beside the built-in graph tools and records their calls; the
 * saved-connection implementation provides this token (none: agents get no MCP tools).
 */
export const AGENT_TOOL_SOURCE = Symbol('AGENT_TOOL_SOURCE');

export interface AgentMcpTool {
  /** `mcp__<slug>__<name>`: the name the model sees and calls */
  model_name: string;
  /** `[MCP: <connection>] ` + the tool's description, at most 4000 characters */
  description: string;
  input_schema: Record<string, unknown>;
  connection_id: string;
  connection_name: string;
  tool_name: string;
  affordance_uid: string;
  /** the connection's approval mode says this call needs a person's approval (before policies) */
  requires_approval: boolean;
  /** the connection's approval mode, which names the reason of a mode-based approval */
  approval_mode: 'always' | 'never' | 'per_tool' | 'on_drift';
}

export interface AgentMcpCallResult {
  status: 'ok' | 'error';
  /** the tool's answer as a model is given it (at most 50,000 characters) */
  result: unknown;
  error: { code: string; message: string } | null;
}

export interface AgentToolSource {
  /** the MCP tools the agent may call now */
  toolsFor(org: string, agentId: string): Promise<AgentMcpTool[]>;
  /** calls one; `signal` aborts it (`notifications/cancelled` to the server) */
  call(org: string, agentId: string, tool: AgentMcpTool, args: Record<string, unknown>, signal: AbortSignal): Promise<AgentMcpCallResult>;
}
