import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DomainError, Errors } from '@strata/domain/errors';
import { ALL_REVISIONS, INITIALIZE_REVISIONS } from './protocol-versions';
import { RouteAnswer, RouteCall, RouteCaller } from './route-call';
import { RESOURCES, RESOURCE_TEMPLATES, resourceCallFor } from './strata-resources';
import { STRATA_TOOL_BY_NAME, describeTools, errorAnswer, routeCallsFor } from './strata-tools';

/** Resource not found (MCP's reserved code; the SDK has no constant for it). */
export const RESOURCE_NOT_FOUND = -32002;

export const SERVER_INFO = { name: 'strata', title: 'Strata knowledge graph' } as const;

export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false, subscribe: false },
};

export const SERVER_INSTRUCTIONS = [
  'Strata is a knowledge graph with memory for agents. Every tool takes an `action` plus that action\'s fields.',
  'Read: strata_retrieve (search, working sets, `context` for a question), strata_traverse (paths, neighborhoods), strata_get_node (a node or its history).',
  'Write: strata_capture (sources, observations, entities), strata_reason (claims, hypotheses, concepts), strata_commit (goals, decisions),',
  'strata_plan (tasks, plans, executions), strata_remember (sessions, distilled memories, preferences), strata_write_article, strata_ingest.',
  'strata_evolve changes or tombstones existing nodes. Resources: strata://stats, strata://goals, strata://decisions, strata://questions,',
  'strata://node/{uid}, strata://search/{query}.',
].join(' ');

/** The `server/discover` request of the stateless revision. */
const DiscoverRequestSchema = z.object({ method: z.literal('server/discover'), params: z.optional(z.object({}).passthrough()) });

/**
 * A request of `method` with any params: registered so, a handler reads its params itself
 * through `paramsOf`. The SDK's own parse of a registered schema reports a mismatch as an
 * internal error (-32603); malformed params are the client's, JSON-RPC -32602.
 */
function anyParams<M extends string>(method: M) {
  return z.object({ method: z.literal(method), params: z.optional(z.unknown()) });
}

interface ParseOutcome<T> {
  success: boolean;
  data?: T;
  error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
}

/** The request as `schema` reads it; JSON-RPC -32602 Invalid params when it does not. */
function paramsOf<T>(schema: { safeParse(v: unknown): ParseOutcome<T> }, request: unknown): T {
  const r = schema.safeParse(request);
  if (r.success) return r.data as T;
  const issues = (r.error?.issues ?? []).map((i) => `${i.path.map(String).join('.') || 'request'}: ${i.message}`).join('; ');
  throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${issues}`);
}

/** What one `/mcp` request brings: the route caller for its credential, and what it may do. */
export interface McpRequestContext {
  /** answers the route calls tools and resources make, as the caller's credential */
  call: RouteCaller;
  /** whether the credential may write: a read credential lists only the read tools */
  canWrite: boolean;
  /**
   * A key bound to a managed agent: the agent's `tools`, the only ones it lists and may call
   * (REFERENCE §16.13); absent for every other credential.
   */
  allowedTools?: ReadonlySet<string>;
  /**
   * Set by a tool call answered with the route's own JSON text: the result's
   * `structuredContent`, serialised, for the exchange to splice into the answer (the SDK sees
   * the result without it, so nothing parses the route's body only to serialise it again).
   */
  structuredJson?: string;
}

/** The SDK hands each handler the `authInfo` of its message: the request context rides there. */
export function contextOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): McpRequestContext {
  const ctx = extra.authInfo?.extra?.strata as McpRequestContext | undefined;
  if (!ctx) throw new McpError(ErrorCode.InternalError, 'no request context');
  return ctx;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A tool result from a route's answer: the JSON as `structuredContent` and as one text item. */
/** Whether a route's JSON text is an object (`{…}`) rather than an array or a scalar. */
function isObjectJson(json: string): boolean {
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    // JSON whitespace: space, tab, line feed, carriage return
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    return c === 123;
  }
  return false;
}

/**
 * The result of a successful tool call whose route answer came as JSON text: the text item is
 * that text, and its structured content (the same JSON, or `{result: …}` around an array) is
 * handed to the exchange in `ctx` to be written into the answer as it is.
 */
function rawToolResult(json: string, ctx: McpRequestContext): { content: { type: 'text'; text: string }[] } {
  ctx.structuredJson = isObjectJson(json) ? json : `{"result":${json}}`;
  return { content: [{ type: 'text', text: json }] };
}

export function toolResultOf(answer: RouteAnswer): { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown>; isError?: true } {
  if (answer.status >= 200 && answer.status < 300) {
    const structured = isObject(answer.body) ? answer.body : { result: answer.body };
    return { content: [{ type: 'text', text: JSON.stringify(answer.body) }], structuredContent: structured };
  }
  const body = isObject(answer.body) ? answer.body : {};
  const structured = { error: body.error ?? `the route answered ${answer.status}`, code: body.code ?? 'internal_error', ...body, status: answer.status };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
}

/** The article argument each link of its batch comes from. */
const ARTICLE_LINK_ARGS: Readonly<Record<string, string>> = { Covers: 'covers_uid', PartOfProject: 'project_uid' };

/**
 * A refusal of the /batch an article and its links are written through, as the tool's caller
 * sent them: the field is `covers_uid` or `project_uid` rather than `to_uid` of an edge, the
 * batch's `index` and its prefix go (the caller sent no batch).
 */
function articleBatchError(call: RouteCall, answer: RouteAnswer): RouteAnswer {
  const body = answer.body;
  if (!isObject(body) || typeof body.index !== 'string') return answer;
  const { index, ...rest } = body;
  let message = typeof rest.error === 'string' ? rest.error.replace(/^(nodes|edges)\[\d+\](\.[A-Za-z_]+)?: /, '') : rest.error;
  const edge = /^edges\[(\d+)\]/.exec(index);
  const links = call.body?.edges;
  const arg = edge && Array.isArray(links) && isObject(links[Number(edge[1])]) ? ARTICLE_LINK_ARGS[String((links[Number(edge[1])] as Record<string, unknown>).edge_type)] : undefined;
  if (arg) {
    if (typeof message === 'string') message = message.replace(/\bto_uid\b/g, arg);
    if (rest.field === 'to_uid') rest.field = arg;
  }
  return { status: answer.status, body: { ...rest, error: message } };
}

/**
 * An article's `project_uid` must name a live Project, as every route taking one requires
 * (REFERENCE §12.1: 404 `not_found`, 400 `wrong_node_type`); the /batch it is written through
 * links any live node. A node's type never changes, so this read holds for the batch, which
 * refuses a Project tombstoned in between itself. A uid the read cannot judge (malformed,
 * refused) is left to the batch's own answer.
 */
async function articleProjectRefusal(rawArgs: unknown, call: RouteCaller): Promise<RouteAnswer | null> {
  const uid = isObject(rawArgs) ? rawArgs.project_uid : undefined;
  if (typeof uid !== 'string' || uid === '') return null;
  const node = await call({ method: 'GET', path: `/node/${encodeURIComponent(uid)}` });
  if (node.status === 404) return errorAnswer(Errors.refNotFound('project_uid', uid));
  if (node.status !== 200 || !isObject(node.body)) return null;
  if (node.body.tombstone_at !== null && node.body.tombstone_at !== undefined) return errorAnswer(Errors.refNotFound('project_uid', uid));
  if (node.body.node_type !== 'Project') return errorAnswer(Errors.wrongNodeType('project_uid', uid, String(node.body.node_type), ['Project']));
  return null;
}

async function runTool(name: string, args: unknown, call: RouteCaller, canWrite: boolean, allowedTools?: ReadonlySet<string>): Promise<RouteAnswer> {
  const tool = STRATA_TOOL_BY_NAME.get(name);
  if (!tool || (!canWrite && !tool.readOnly) || (allowedTools && !allowedTools.has(name))) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
  let routeCall;
  try {
    routeCall = routeCallsFor(tool, args);
  } catch (err) {
    if (err instanceof DomainError) return errorAnswer(err);
    throw err;
  }
  if (tool.name === 'strata_write_article') {
    const refused = await articleProjectRefusal(args, call);
    if (refused) return refused;
  }
  const answer = await call(routeCall);
  if (tool.name === 'strata_write_article' && routeCall.path === '/batch' && answer.status >= 400) return articleBatchError(routeCall, answer);
  // an article written with its links through /batch answers as POST /node would: the node
  if (tool.name === 'strata_write_article' && routeCall.path === '/batch' && answer.status === 201 && isObject(answer.body)) {
    const uid = (answer.body.node_uids as string[])[0];
    const node = await call({ method: 'GET', path: `/node/${encodeURIComponent(uid)}` });
    if (node.status === 200 && isObject(node.body)) return { status: 201, body: { ...node.body, edge_uids: answer.body.edge_uids } };
  }
  return answer;
}

/**
 * Strata's MCP server on the SDK's Server class: tools and resources are answered by calling
 * Strata's own routes through each request's `call`, so every rule, limit and error of the
 * HTTP interface holds over MCP too. One instance serves every request; nothing it keeps
 * depends on who asked.
 */
export function createStrataMcpServer(version: string): Server {
  const serverInfo = { ...SERVER_INFO, version };
  const server = new Server(serverInfo, { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS });

  // the SDK echoes every revision it knows; Strata offers exactly the ones of REFERENCE §15.11
  server.removeRequestHandler('initialize');
  server.setRequestHandler(anyParams('initialize'), (raw) => {
    const req = paramsOf(InitializeRequestSchema, raw);
    const asked = req.params.protocolVersion;
    const protocolVersion = (INITIALIZE_REVISIONS as readonly string[]).includes(asked) ? asked : INITIALIZE_REVISIONS[0];
    return { protocolVersion, capabilities: SERVER_CAPABILITIES, serverInfo, instructions: SERVER_INSTRUCTIONS };
  });
  server.setRequestHandler(anyParams('server/discover'), (raw) => (paramsOf(DiscoverRequestSchema, raw), {
    supportedVersions: [...ALL_REVISIONS],
    capabilities: SERVER_CAPABILITIES,
    serverInfo,
    instructions: SERVER_INSTRUCTIONS,
  }));

  const toolLists = { write: describeTools(true), read: describeTools(false) };
  server.setRequestHandler(anyParams('tools/list'), (raw, extra) => {
    paramsOf(ListToolsRequestSchema, raw);
    const ctx = contextOf(extra);
    const tools = ctx.canWrite ? toolLists.write : toolLists.read;
    const allowed = ctx.allowedTools;
    return { tools: (allowed ? tools.filter((t) => allowed.has(t.name as string)) : tools) as never };
  });
  server.setRequestHandler(anyParams('tools/call'), async (raw, extra) => {
    const req = paramsOf(CallToolRequestSchema, raw);
    const ctx = contextOf(extra);
    const answer = await runTool(req.params.name, req.params.arguments, ctx.call, ctx.canWrite, ctx.allowedTools);
    if (answer.json !== undefined && answer.status >= 200 && answer.status < 300) return rawToolResult(answer.json, ctx);
    return toolResultOf(answer);
  });

  server.setRequestHandler(anyParams('resources/list'), (raw) => (paramsOf(ListResourcesRequestSchema, raw), { resources: RESOURCES.map((r) => ({ ...r })) }));
  server.setRequestHandler(anyParams('resources/templates/list'), (raw) => (paramsOf(ListResourceTemplatesRequestSchema, raw), { resourceTemplates: RESOURCE_TEMPLATES.map((r) => ({ ...r })) }));
  server.setRequestHandler(anyParams('resources/read'), async (raw, extra) => {
    const req = paramsOf(ReadResourceRequestSchema, raw);
    const uri = req.params.uri;
    const routeCall = resourceCallFor(uri);
    if (!routeCall) throw new McpError(RESOURCE_NOT_FOUND, `unknown resource: ${uri}`, { uri });
    const answer = await contextOf(extra).call(routeCall);
    if (answer.status === 404) throw new McpError(RESOURCE_NOT_FOUND, `resource not found: ${uri}`, { uri });
    if (answer.status < 200 || answer.status >= 300) {
      const body = isObject(answer.body) ? answer.body : {};
      throw new McpError(ErrorCode.InternalError, String(body.error ?? `the route answered ${answer.status}`), { code: body.code ?? 'internal_error', status: answer.status });
    }
    return { contents: [{ uri, mimeType: 'application/json', text: answer.json ?? JSON.stringify(answer.body) }] };
  });
  return server;
}
