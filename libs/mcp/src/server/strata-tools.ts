import {
  AGENT_PLAN,
  EPISTEMIC_INQUIRY,
  EPISTEMIC_STRUCTURE,
  EndpointDef,
  INTENT_COMMITMENT,
  INTENT_DELIBERATION,
  MEMORY_CONFIG,
  REALITY_CAPTURE,
} from '@strata/domain/cognitive';
import { DomainError, Errors } from '@strata/domain/errors';
import { RETRIEVE_ACTIONS } from '@strata/domain/retrieval';
import { TRAVERSE_ACTIONS } from '@strata/domain/traversal';
import { RouteCall } from './route-call';

/** Where one `action` of a tool goes. */
export type ToolTarget =
  /** POST the arguments to `path`; `action` renamed (string), dropped (null) or kept (absent) */
  | { kind: 'post'; path: string; action?: string | null }
  /** `GET /node/{uid}` or `GET /node/{uid}/history`, other arguments as the query */
  | { kind: 'node'; suffix: '' | '/history' }
  /** `POST /node` Article, or `POST /batch` when it links a covered node or a Project */
  | { kind: 'article' };

export interface StrataToolDef {
  name: string;
  title: string;
  description: string;
  /** a `read` credential lists only these */
  readOnly: boolean;
  destructive: boolean;
  actions: Readonly<Record<string, ToolTarget>>;
  /** the common fields shown in the input schema (others are allowed) */
  fields: Readonly<Record<string, Record<string, unknown>>>;
}

/** The `/evolve` actions (the route validates them; listed here for the schema's enum). */
const EVOLVE_ACTIONS = ['update', 'tombstone', 'tombstone_cascade', 'restore', 'decay', 'history', 'snapshot', 'tombstone_edge', 'restore_edge'];

function post(path: string, names: readonly string[], action?: string | null): Record<string, ToolTarget> {
  return Object.fromEntries(names.map((n) => [n, action === undefined ? { kind: 'post', path } : { kind: 'post', path, action }]));
}
const all = (e: EndpointDef) => Object.keys(e.actions);

const STR = { type: 'string' };
const UID = { type: 'string', description: 'a node uid' };
const PROPS = { type: 'object', description: 'type-specific fields of the node written' };
const LIMIT = { type: 'integer', minimum: 1 };

/** The eleven tools of REFERENCE §15.11, each a thin name over existing routes. */
export const STRATA_TOOLS: readonly StrataToolDef[] = [
  {
    name: 'strata_capture',
    title: 'Capture reality',
    description: 'Record sources, snippets and observations (/reality/capture), and create, alias, resolve, merge or relate entities (/reality/entity; action "entity" creates one).',
    readOnly: false,
    destructive: false,
    actions: {
      ...post('/reality/capture', all(REALITY_CAPTURE)),
      entity: { kind: 'post', path: '/reality/entity', action: 'create' },
      ...post('/reality/entity', ['alias', 'resolve', 'fuzzy_resolve', 'merge', 'relate']),
    },
    fields: { label: STR, props: PROPS, name: STR, entity_type: STR, content: STR },
  },
  {
    name: 'strata_reason',
    title: 'Reason',
    description: 'Write arguments (claim, evidence, warrant: /epistemic/argument), inquiry nodes such as hypotheses and questions (/epistemic/inquiry) and structures such as concepts and models (/epistemic/structure).',
    readOnly: false,
    destructive: false,
    actions: {
      ...post('/epistemic/argument', ['argument']),
      ...post('/epistemic/inquiry', all(EPISTEMIC_INQUIRY)),
      ...post('/epistemic/structure', all(EPISTEMIC_STRUCTURE)),
    },
    fields: { label: STR, props: PROPS, claim: { type: 'object' }, evidence: { type: 'array' } },
  },
  {
    name: 'strata_commit',
    title: 'Commit and deliberate',
    description: 'Create goals, projects and milestones (/intent/commitment); open decisions, add options and constraints, resolve them, list open ones (/intent/deliberation).',
    readOnly: false,
    destructive: false,
    actions: { ...post('/intent/commitment', all(INTENT_COMMITMENT)), ...post('/intent/deliberation', all(INTENT_DELIBERATION)) },
    fields: { label: STR, props: PROPS, decision_uid: UID },
  },
  {
    name: 'strata_plan',
    title: 'Plan and execute',
    description: 'Tasks, plans and steps (/agent/plan); executions start, complete, fail, list (/agent/execution); approval requests (/agent/governance).',
    readOnly: false,
    destructive: false,
    actions: {
      ...post('/agent/plan', all(AGENT_PLAN)),
      ...post('/agent/execution', ['start', 'complete', 'fail', 'get_executions']),
      ...post('/agent/governance', ['request_approval', 'get_pending']),
    },
    fields: { label: STR, props: PROPS, plan_uid: UID, execution_uid: UID },
  },
  {
    name: 'strata_remember',
    title: 'Remember',
    description: 'Sessions, traces and journal entries (/memory/session), distilled memories (/memory/distill), preferences and memory policies (/memory/config).',
    readOnly: false,
    destructive: false,
    actions: {
      ...post('/memory/session', ['open', 'trace', 'close', 'journal']),
      ...post('/memory/distill', ['distill']),
      ...post('/memory/config', all(MEMORY_CONFIG)),
    },
    fields: { label: STR, props: PROPS, session_uid: UID },
  },
  {
    name: 'strata_retrieve',
    title: 'Retrieve',
    description: 'Search the graph (text, semantic, hybrid), list working sets (active goals, open questions, weak claims, pending approvals…), or assemble a context for a question (action "context", /retrieve/context).',
    readOnly: true,
    destructive: false,
    actions: { ...post('/retrieve', RETRIEVE_ACTIONS), context: { kind: 'post', path: '/retrieve/context', action: null } },
    fields: { query: STR, limit: LIMIT, node_type: STR, layer: STR, node_limit: LIMIT },
  },
  {
    name: 'strata_traverse',
    title: 'Traverse',
    description: 'Walk the graph: reasoning chains, neighborhoods, shortest paths, subgraphs, top-k paths (/traverse).',
    readOnly: true,
    destructive: false,
    actions: post('/traverse', TRAVERSE_ACTIONS),
    fields: { uid: UID, start_uid: UID, end_uid: UID, max_depth: LIMIT },
  },
  {
    name: 'strata_get_node',
    title: 'Get a node',
    description: 'Read one node by uid (action "get"), or its version history (action "history").',
    readOnly: true,
    destructive: false,
    actions: { get: { kind: 'node', suffix: '' }, history: { kind: 'node', suffix: '/history' } },
    fields: { uid: UID, limit: LIMIT, offset: { type: 'integer', minimum: 0 } },
  },
  {
    name: 'strata_evolve',
    title: 'Evolve',
    description: 'Versioned changes to nodes and edges: update, tombstone (with cascade), restore, decay, history, snapshot (/evolve).',
    readOnly: false,
    destructive: true,
    actions: post('/evolve', EVOLVE_ACTIONS),
    fields: { uid: UID, props_patch: { type: 'object' }, reason: STR },
  },
  {
    name: 'strata_ingest',
    title: 'Ingest',
    description: 'Ingest a chunk, a document or a session transcript with model extraction (/ingest/chunk, /ingest/document, /ingest/session).',
    readOnly: false,
    destructive: false,
    actions: {
      chunk: { kind: 'post', path: '/ingest/chunk', action: null },
      document: { kind: 'post', path: '/ingest/document', action: null },
      session: { kind: 'post', path: '/ingest/session', action: null },
    },
    fields: { content: STR, title: STR, layers: { type: 'array', items: STR } },
  },
  {
    name: 'strata_write_article',
    title: 'Write an article',
    description: 'Create an Article node (label, content, article_type, source_node_uids); covers_uid links it Covers to the node it covers, project_uid PartOfProject to a Project.',
    readOnly: false,
    destructive: false,
    actions: { create: { kind: 'article' } },
    fields: {
      label: STR,
      content: STR,
      article_type: STR,
      source_node_uids: { type: 'array', items: STR },
      covers_uid: UID,
      project_uid: UID,
    },
  },
];

export const STRATA_TOOL_BY_NAME: ReadonlyMap<string, StrataToolDef> = new Map(STRATA_TOOLS.map((t) => [t.name, t]));

/** The JSON Schema of a tool's arguments: `action` plus the common fields, others allowed. */
export function inputSchemaOf(tool: StrataToolDef): Record<string, unknown> {
  return {
    type: 'object',
    properties: { action: { type: 'string', enum: Object.keys(tool.actions) }, ...tool.fields },
    required: ['action'],
    additionalProperties: true,
  };
}

/** The MCP tool descriptions, as `tools/list` answers them. */
export function describeTools(canWrite: boolean): Record<string, unknown>[] {
  return STRATA_TOOLS.filter((t) => canWrite || t.readOnly).map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: inputSchemaOf(t),
    annotations: {
      title: t.title,
      readOnlyHint: t.readOnly,
      ...(t.readOnly ? {} : { destructiveHint: t.destructive }),
      openWorldHint: false,
    },
  }));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function uidArg(args: Record<string, unknown>, field: string): string {
  const v = args[field];
  if (v === undefined || v === null || v === '') throw Errors.missingField(field);
  if (typeof v !== 'string') throw Errors.invalidField(field, `${field} must be a string`);
  return v;
}

/** Query parameters from the scalar arguments (objects and arrays have no query form). */
function queryOf(args: Record<string, unknown>): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') q[k] = String(v);
  return q;
}

/**
 * The route calls one tool call makes (one, or two for an article that links: the batch write,
 * then the node read). Throws a DomainError shaped as the route's own for bad input found
 * before any route is reached (unknown action, missing uid).
 */
export function routeCallsFor(tool: StrataToolDef, rawArgs: unknown): RouteCall {
  const args: Record<string, unknown> = isObject(rawArgs) ? { ...rawArgs } : {};
  // attribution comes from the credential, never from the caller's arguments
  delete args.agent_id;
  const action = args.action;
  const target = typeof action === 'string' && Object.hasOwn(tool.actions, action) ? tool.actions[action] : undefined;
  if (!target) throw Errors.unknownAction(action, Object.keys(tool.actions));
  switch (target.kind) {
    case 'post': {
      if (target.action === null) delete args.action;
      else if (target.action !== undefined) args.action = target.action;
      return { method: 'POST', path: target.path, body: args };
    }
    case 'node': {
      const uid = uidArg(args, 'uid');
      delete args.uid;
      delete args.action;
      return { method: 'GET', path: `/node/${encodeURIComponent(uid)}${target.suffix}`, query: queryOf(args) };
    }
    case 'article':
      return articleCall(args);
  }
}

function articleCall(args: Record<string, unknown>): RouteCall {
  const props: Record<string, unknown> = {};
  for (const k of ['content', 'article_type', 'source_node_uids']) if (args[k] !== undefined) props[k] = args[k];
  if (isObject(args.props)) Object.assign(props, args.props);
  const node: Record<string, unknown> = { label: args.label, node_type: 'Article', props };
  for (const k of ['summary', 'confidence', 'salience', 'privacy_level', 'space_uid']) if (args[k] !== undefined) node[k] = args[k];
  const edges: Record<string, unknown>[] = [];
  if (args.covers_uid !== undefined) edges.push({ from_ref: 'article', to_uid: args.covers_uid, edge_type: 'Covers' });
  if (args.project_uid !== undefined) edges.push({ from_ref: 'article', to_uid: args.project_uid, edge_type: 'PartOfProject' });
  if (edges.length === 0) return { method: 'POST', path: '/node', body: node };
  // one transaction for the article and its links: nothing is written when a link target is bad
  return { method: 'POST', path: '/batch', body: { nodes: [{ ref: 'article', ...node }], edges } };
}

/** The error body a tool reports for input refused before any route ran. */
export function errorAnswer(err: DomainError): { status: number; body: Record<string, unknown> } {
  return { status: err.status, body: err.toBody() };
}
