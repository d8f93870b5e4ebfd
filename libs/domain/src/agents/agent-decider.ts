import { DomainError, Errors } from '../errors';
import { AGENT_TOOL_NAMES, AgentRecord, AgentScope, TemplateType, templateOf } from './agent-record';

/** The create fields of an agent (REFERENCE §16.3) once their shapes are checked. */
export interface AgentInput {
  name?: string;
  template_type?: TemplateType;
  instructions?: string;
  description?: string | null;
  model?: string;
  daily_credit_budget?: number;
  max_steps?: number;
  tools?: string[];
  scope?: AgentScope;
  paused?: boolean;
}

/** What the deciders need to know about the service and the organization. */
export interface AgentContext {
  /** STRATA_LLM_MODEL: the default model (null when no chat model is configured) */
  defaultModel: string | null;
  /** STRATA_LLM_MODELS */
  models: readonly string[];
  /** names of the organization's non-archived agents other than the one decided on */
  takenNames: ReadonlySet<string>;
}

export const AgentErrors = {
  notFound: (id: string) => Errors.notFound(`agent ${id} not found`, { field: 'id', uid: id }),
  paused: (id: string) => new DomainError(409, 'agent_paused', `agent ${id} is paused`, { agent_id: id }),
  archived: (id: string) => Errors.invalidTransition(`agent ${id} is archived`, 'archived', []),
};

function assertTools(tools: readonly string[]): void {
  const unknown = tools.filter((t) => !AGENT_TOOL_NAMES.includes(t));
  if (unknown.length) throw Errors.invalidField('tools', `unknown tools: ${unknown.join(', ')}`, { allowed: [...AGENT_TOOL_NAMES] });
}

function assertModel(model: string, ctx: Pick<AgentContext, 'models'>): void {
  if (!ctx.models.includes(model)) throw Errors.invalidField('model', `model '${model}' is not one of the configured models (STRATA_LLM_MODELS)`, { allowed: [...ctx.models] });
}

function normalName(name: string): string {
  return name.trim().toLowerCase();
}

function assertNameFree(name: string, ctx: AgentContext): void {
  if (ctx.takenNames.has(normalName(name))) throw Errors.duplicate(`an agent named '${name}' already exists`, { field: 'name' });
}

/** The key names are compared by (case-insensitive). */
export function agentNameKey(name: string): string {
  return normalName(name);
}

/**
 * The body rules of a create or PATCH (400), checked before anything is looked up: in the
 * order of REFERENCE §16.1 a bad body is refused before a missing agent or Project (404), a
 * taken name or an archived agent (409) and the plan's agent limit (403). `keepModel`: the
 * agent's model now, which a PATCH may name again even if it is no longer configured.
 */
export function assertAgentFields(input: AgentInput, ctx: Pick<AgentContext, 'models'>, mode: { create: true } | { create: false; keepModel?: string }): void {
  if (mode.create && !input.name) throw Errors.missingField('name');
  if (input.model !== undefined && (mode.create || input.model !== mode.keepModel)) assertModel(input.model, ctx);
  if (input.tools !== undefined) assertTools(input.tools);
}

/** A new agent from its create fields, the template filling what is left out. */
export function decideCreateAgent(input: AgentInput, ids: { id: string; node_uid: string }, org: string, by: string, ctx: AgentContext, now: number): AgentRecord {
  assertAgentFields(input, ctx, { create: true });
  if (!input.name) throw Errors.missingField('name');
  const templateType = input.template_type ?? 'custom';
  const template = templateOf(templateType);
  const model = input.model ?? ctx.defaultModel;
  if (model === null) throw Errors.invalidField('model', 'no language model is configured (STRATA_LLM_MODEL): name none or configure one');
  const tools = [...new Set(input.tools ?? template.tools)];
  assertTools(tools);
  assertNameFree(input.name, ctx);
  const paused = input.paused ?? false;
  return {
    id: ids.id,
    org_id: org,
    name: input.name,
    description: input.description ?? null,
    template_type: templateType,
    instructions: input.instructions ?? template.instructions,
    model,
    daily_credit_budget: input.daily_credit_budget ?? template.daily_credit_budget,
    max_steps: input.max_steps ?? 25,
    tools,
    scope: normalScope(input.scope),
    paused,
    status: paused ? 'paused' : 'active',
    node_uid: ids.node_uid,
    created_by: by,
    created_at: now,
    updated_at: now,
    archived_at: null,
  };
}

function normalScope(s: AgentScope | undefined): AgentScope {
  const out: AgentScope = {};
  if (s?.space_uids) out.space_uids = [...new Set(s.space_uids)];
  if (s?.project_uids) out.project_uids = [...new Set(s.project_uids)];
  return out;
}

export type AgentChange = 'updated' | 'paused' | 'resumed';

/** A PATCH: the record after it and what changed (empty: nothing did, and nothing is written). */
export function decideUpdateAgent(a: AgentRecord, input: AgentInput, ctx: AgentContext, now: number): { agent: AgentRecord; changed: string[]; moves: AgentChange[] } {
  assertAgentFields(input, ctx, { create: false, keepModel: a.model });
  if (a.status === 'archived') throw AgentErrors.archived(a.id);
  const next: AgentRecord = { ...a };
  if (input.name !== undefined && input.name !== a.name) {
    if (normalName(input.name) !== normalName(a.name)) assertNameFree(input.name, ctx);
    next.name = input.name;
  }
  if (input.template_type !== undefined) next.template_type = input.template_type;
  if (input.instructions !== undefined) next.instructions = input.instructions;
  if (input.description !== undefined) next.description = input.description;
  if (input.model !== undefined) {
    if (input.model !== a.model) assertModel(input.model, ctx);
    next.model = input.model;
  }
  if (input.daily_credit_budget !== undefined) next.daily_credit_budget = input.daily_credit_budget;
  if (input.max_steps !== undefined) next.max_steps = input.max_steps;
  if (input.tools !== undefined) {
    assertTools(input.tools);
    next.tools = [...new Set(input.tools)];
  }
  if (input.scope !== undefined) next.scope = normalScope(input.scope);
  if (input.paused !== undefined) {
    next.paused = input.paused;
    next.status = input.paused ? 'paused' : 'active';
  }
  const changed = (Object.keys(next) as (keyof AgentRecord)[]).filter((k) => JSON.stringify(next[k]) !== JSON.stringify(a[k]) && k !== 'status');
  if (!changed.length) return { agent: a, changed: [], moves: [] };
  next.updated_at = now;
  const moves: AgentChange[] = [];
  if (changed.some((k) => k !== 'paused')) moves.push('updated');
  if (next.paused !== a.paused) moves.push(next.paused ? 'paused' : 'resumed');
  return { agent: next, changed, moves };
}

/** Archive: null when already archived (a no-op). */
export function decideArchiveAgent(a: AgentRecord, now: number): AgentRecord | null {
  if (a.status === 'archived') return null;
  return { ...a, status: 'archived', archived_at: now, updated_at: now };
}
