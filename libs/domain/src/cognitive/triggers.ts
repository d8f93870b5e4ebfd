import { Errors } from '../errors';
import { NodeRecord } from '../records';
import { Body, isWellFormedUid, present } from '../validation';
import { CognitiveView } from './cognitive-view';
import { ActionContext, ChangeSet } from './decision';

/**
 * A trigger field of a cognitive call (REFERENCE §4): each uid it names becomes an edge
 * between the new node N and the named node X.
 */
export interface TriggerDef {
  readonly field: string;
  readonly edge: string;
  /** out: N → X; in: X → N */
  readonly dir: 'out' | 'in';
  /** one: `*_uid`; many: `*_uids` array; one_or_many: `str|[]` */
  readonly arity: 'one' | 'many' | 'one_or_many';
  /** host types the named node must have (400 wrong_node_type otherwise) */
  readonly types?: readonly string[];
  readonly required?: boolean;
  /** accepted spellings of the field, used when the field itself is absent */
  readonly aliases?: readonly string[];
  /** host types when the node is named through an alias, where the alias allows more (§2.8) */
  readonly aliasTypes?: readonly string[];
  /** the edge carries `order` = 1-based position in the list */
  readonly ordered?: boolean;
  /** other props the edge carries (AssignedTo.assigned_at, ExtractedFrom.method…) */
  readonly edgeProps?: (c: EdgePropsInput) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** the new node's props field that records the uid (one) or uids (many) */
  readonly setProp?: string;
  /** a second edge per target (e.g. previous step: N → prev DependsOn and prev → N Follows) */
  readonly also?: { readonly edge: string; readonly dir: 'out' | 'in' };
}

export interface EdgePropsInput {
  target: NodeRecord;
  index: number;
  view: CognitiveView;
  ctx: ActionContext;
}

/** A trigger as given in the request, after uid syntax checks (deduplicated, order kept). */
export interface ParsedTrigger {
  def: TriggerDef;
  /** the field name the client used (an alias when the canonical one was absent) */
  field: string;
  uids: string[];
}

export interface ResolvedTrigger extends ParsedTrigger {
  nodes: NodeRecord[];
}

function givenField(body: Body, def: TriggerDef): string | undefined {
  if (present(body, def.field)) return def.field;
  return def.aliases?.find((a) => present(body, a));
}

/** §4.0 step 3: required triggers are present. */
export function checkRequiredTriggers(body: Body, defs: readonly TriggerDef[]): void {
  for (const d of defs) if (d.required && givenField(body, d) === undefined) throw Errors.missingField(d.field);
}

/** §4.0 step 4: each trigger has the JSON shape its arity allows. */
export function checkTriggerShapes(body: Body, defs: readonly TriggerDef[]): void {
  for (const d of defs) {
    const f = givenField(body, d);
    if (f === undefined) continue;
    const v = body[f];
    const ok = d.arity === 'one' ? typeof v === 'string' : d.arity === 'many' ? Array.isArray(v) : typeof v === 'string' || Array.isArray(v);
    if (!ok) {
      const what = d.arity === 'one' ? 'a uid string' : d.arity === 'many' ? 'an array of uids' : 'a uid or an array of uids';
      throw Errors.invalidField(f, `${f} must be ${what}`);
    }
    if (d.required && Array.isArray(v) && v.length === 0) throw Errors.missingField(f, `${f} must not be empty`);
  }
}

/** Distinct raw values of a trigger before syntax checks (for counts used as defaults). */
export function rawTriggerCount(body: Body, def: TriggerDef): number {
  const f = givenField(body, def);
  if (f === undefined) return 0;
  const v = body[f];
  return Array.isArray(v) ? new Set(v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))).size : 1;
}

/** §4.0 step 6: every uid is well-formed. Repeated uids collapse to one (one edge per target). */
export function parseTriggers(body: Body, defs: readonly TriggerDef[]): ParsedTrigger[] {
  const out: ParsedTrigger[] = [];
  for (const d of defs) {
    const f = givenField(body, d);
    if (f === undefined) continue;
    const v = body[f];
    const list = Array.isArray(v) ? v : [v];
    const seen = new Set<string>();
    const uids: string[] = [];
    list.forEach((u, i) => {
      if (!isWellFormedUid(u)) throw Errors.invalidUid(Array.isArray(v) ? `${f}[${i}]` : f);
      if (!seen.has(u)) {
        seen.add(u);
        uids.push(u);
      }
    });
    if (uids.length) out.push({ def: d, field: f, uids });
  }
  return out;
}

export interface RefCheck {
  uid: string;
  field: string;
  types?: readonly string[];
}

/**
 * §4.0 steps 7 and 8: every referenced uid is live (404 not_found with field and uid), then
 * every host type is right (400 wrong_node_type). Returns the nodes in input order.
 */
export async function loadLive(view: CognitiveView, refs: readonly RefCheck[]): Promise<NodeRecord[]> {
  const nodes: NodeRecord[] = [];
  for (const r of refs) {
    const n = await view.node(r.uid);
    if (!n || n.tombstone_at !== null) throw Errors.refNotFound(r.field, r.uid);
    nodes.push(n);
  }
  refs.forEach((r, i) => {
    if (r.types && r.types.length && !r.types.includes(nodes[i].node_type)) throw Errors.wrongNodeType(r.field, r.uid, nodes[i].node_type, r.types);
  });
  return nodes;
}

/** Loads every trigger's targets, all liveness checks before any type check. */
export async function resolveTriggers(view: CognitiveView, parsed: readonly ParsedTrigger[], extra: readonly RefCheck[] = []) {
  const refs: RefCheck[] = [...extra];
  for (const p of parsed) {
    const types = p.field !== p.def.field && p.def.aliasTypes ? p.def.aliasTypes : p.def.types;
    for (const uid of p.uids) refs.push({ uid, field: p.field, types });
  }
  const nodes = await loadLive(view, refs);
  const extraNodes = nodes.slice(0, extra.length);
  let i = extra.length;
  const triggers: ResolvedTrigger[] = parsed.map((p) => ({ ...p, nodes: p.uids.map(() => nodes[i++]) }));
  return { triggers, extra: extraNodes };
}

/** The props fields the triggers record on the new node (`setProp`). */
export function triggerPropsOf(triggers: readonly ParsedTrigger[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of triggers) if (t.def.setProp) out[t.def.setProp] = t.def.arity === 'many' ? [...t.uids] : t.uids[0];
  return out;
}

/** Stages each trigger's edges, in table order, then list order. */
export async function createTriggerEdges(cs: ChangeSet, view: CognitiveView, node: NodeRecord, triggers: readonly ResolvedTrigger[]): Promise<void> {
  for (const t of triggers) {
    for (let i = 0; i < t.nodes.length; i++) {
      const target = t.nodes[i];
      const props: Record<string, unknown> = t.def.ordered ? { order: i + 1 } : {};
      if (t.def.edgeProps) Object.assign(props, await t.def.edgeProps({ target, index: i, view, ctx: cs.ctx }));
      link(cs, node, target, t.def.edge, t.def.dir, props);
      if (t.def.also) link(cs, node, target, t.def.also.edge, t.def.also.dir, {});
    }
  }
}

function link(cs: ChangeSet, n: NodeRecord, x: NodeRecord, edge: string, dir: 'out' | 'in', props: Record<string, unknown>): void {
  if (dir === 'out') cs.edge(n, x, edge, props);
  else cs.edge(x, n, edge, props);
}
