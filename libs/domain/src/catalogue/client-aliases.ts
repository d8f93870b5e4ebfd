import { Errors } from '../errors/domain-error';

/*
 * The names the hosted product's own SDK and MCP server send (REFERENCE §2.8), as data. Props
 * validation, cognitive calls and OpenAPI all read these tables; no route spells an alias.
 */

/**
 * A props alias: `alias` sent for a type in `types` is taken as `field`. `field: null` means the
 * value is not a props field at all: it is registered as an alias of the new node (§8.4).
 */
export interface PropsAliasRow {
  readonly types: readonly string[];
  readonly alias: string;
  readonly field: string | null;
}

/** §2.8 props aliases. Among aliases of one field, the earlier row wins when several are sent. */
export const PROPS_ALIASES: readonly PropsAliasRow[] = Object.freeze([
  { types: ['Question', 'OpenQuestion'], alias: 'question', field: 'text' },
  { types: ['Claim'], alias: 'statement', field: 'content' },
  { types: ['Evidence'], alias: 'statement', field: 'description' },
  { types: ['Evidence'], alias: 'content', field: 'description' },
  { types: ['Warrant'], alias: 'content', field: 'principle' },
  { types: ['Warrant'], alias: 'statement', field: 'principle' },
  { types: ['Person'], alias: 'canonical_name', field: 'full_name' },
  { types: ['Person'], alias: 'name', field: 'full_name' },
  { types: ['Concept'], alias: 'canonical_name', field: 'name' },
  { types: ['Organization', 'Nation', 'Event', 'Place'], alias: 'canonical_name', field: null },
]);

/** §2.8 props additions, in the field syntax of `parseFields`; appended to the type's own row. */
export const PROPS_ADDITIONS: Readonly<Record<string, string>> = Object.freeze({
  Journal: 'mood string?',
  RiskAssessment: 'vulnerability string?',
  MemoryPolicy: 'principle string?',
  SafetyBudget: 'description string?',
  Control: 'condition string?; action string?',
});

/** The §2.8 additions of one type, `''` when it has none. */
export function propsAdditionsOf(typeName: string): string {
  return PROPS_ADDITIONS[typeName] ?? '';
}

/**
 * A trigger alias of one cognitive route and its actions. `rename`: the alias is taken as the
 * field when the field is absent, and the field's own host-type check applies. `action`: the
 * action resolves the alias itself (it may name more host types, `alsoTypes`).
 */
export interface TriggerAliasRow {
  readonly path: string;
  readonly actions: readonly string[];
  /** a top-level field, or `props.<key>` for a value sent inside props */
  readonly alias: string;
  readonly field: string;
  readonly resolution: 'rename' | 'action';
  readonly note?: string;
}

/** §2.8 trigger aliases (and §4.16's `requires_plan_uid`). */
export const TRIGGER_ALIASES: readonly TriggerAliasRow[] = Object.freeze([
  { path: 'agent/plan', actions: ['update_status'], alias: 'task_uid', field: 'target_uid', resolution: 'rename' },
  { path: 'agent/governance', actions: ['resolve_approval'], alias: 'task_uid', field: 'approval_uid', resolution: 'rename' },
  { path: 'agent/governance', actions: ['resolve_approval'], alias: 'props.approved', field: 'approved', resolution: 'rename' },
  { path: 'agent/governance', actions: ['request_approval'], alias: 'requires_plan_uid', field: 'governed_uid', resolution: 'rename' },
  {
    path: 'agent/execution',
    actions: ['complete', 'fail'],
    alias: 'task_uid',
    field: 'execution_uid',
    resolution: 'action',
    note: 'an Execution, or a Task or Plan with exactly one running Execution (ExecutionOf); none or several is a 409',
  },
  { path: 'agent/execution', actions: ['start'], alias: 'task_uid', field: 'plan_uid', resolution: 'action', note: 'a Task is also accepted as the ExecutionOf target' },
  { path: 'action/procedure', actions: ['add_step', 'add_control'], alias: 'target_uid', field: 'flow_uid', resolution: 'rename' },
  { path: 'action/procedure', actions: ['add_affordance'], alias: 'target_uid', field: 'source_uid', resolution: 'rename' },
  { path: 'action/risk', actions: ['assess'], alias: 'target_uid', field: 'assessed_uid', resolution: 'rename' },
]);

/** The trigger aliases of one route's action. */
export function triggerAliasesOf(path: string, action: string): TriggerAliasRow[] {
  return TRIGGER_ALIASES.filter((r) => r.path === path && r.actions.includes(action));
}

const ALIASES_BY_TYPE = new Map<string, readonly PropsAliasRow[]>();

/** The props aliases a type accepts, in table order (read on every node write: kept per type). */
export function propsAliasesOf(typeName: string): readonly PropsAliasRow[] {
  let rows = ALIASES_BY_TYPE.get(typeName);
  if (rows === undefined) {
    rows = Object.freeze(PROPS_ALIASES.filter((r) => r.types.includes(typeName)));
    // custom type names are unbounded: only the catalogue's are kept
    if (rows.length || ALIASES_BY_TYPE.size < 512) ALIASES_BY_TYPE.set(typeName, rows);
  }
  return rows;
}

/** Whether `key` is a props alias of the type (a name the type accepts besides its fields). */
export function isPropsAlias(typeName: string, key: string): boolean {
  return PROPS_ALIASES.some((r) => r.alias === key && r.types.includes(typeName));
}

export interface AliasedProps {
  /** the props with every alias taken as its field (the catalogue name wins when both are sent) */
  props: Record<string, unknown>;
  /** values of `field: null` aliases: texts to register as aliases of the new node */
  nodeAliases: string[];
}

/**
 * Takes the type's props aliases as their fields. An alias whose field was also sent is
 * dropped: output always uses the catalogue name. `nodeAliases` is left in place (and then
 * rejected as an unknown field) unless the caller can register them (`takeNodeAliases`).
 */
export function resolvePropsAliases(typeName: string, props: Record<string, unknown>, opts: { takeNodeAliases: boolean; prefix?: string }): AliasedProps {
  const rows = propsAliasesOf(typeName);
  if (!rows.length) return { props, nodeAliases: [] };
  const out: Record<string, unknown> = { ...props };
  const nodeAliases: string[] = [];
  const prefix = opts.prefix ?? 'props';
  for (const r of rows) {
    if (!(r.alias in out)) continue;
    const v = out[r.alias];
    if (r.field === null) {
      if (!opts.takeNodeAliases) continue;
      delete out[r.alias];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw Errors.invalidProps(`${prefix}.${r.alias} must be a string`, { field: `${prefix}.${r.alias}` });
      if (v.trim()) nodeAliases.push(v.trim());
      continue;
    }
    delete out[r.alias];
    if (out[r.field] === undefined) out[r.field] = v;
  }
  return { props: out, nodeAliases };
}

/**
 * Flattened props (§2.8): the keys of a cognitive request (or argument item) that are not
 * part of the request shape (`reserved`) but are props fields or aliases of `typeName`.
 */
export function flattenedProps(
  body: Record<string, unknown>,
  fieldNames: { has(key: string): boolean },
  typeName: string,
  reserved: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(body)) {
    if (reserved.has(k) || k === '_type') continue;
    if (!fieldNames.has(k) && !isPropsAlias(typeName, k)) continue;
    const v = body[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The request-shape fields every cognitive create shares (§4.0), never taken as props. */
export const COGNITIVE_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'action',
  'label',
  'summary',
  'confidence',
  'salience',
  'privacy_level',
  'privacy',
  'props',
  'agent_id',
  'node_type',
  'layer',
]);

