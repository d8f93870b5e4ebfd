import { Errors } from '../errors';
import { COGNITIVE_REQUEST_FIELDS, compileSchema, flattenedProps, getNodeType } from '../catalogue';
import { decideCreateNode, decideNodeAliases, LABEL_MAX } from '../graph';
import { Layer, NodeRecord } from '../records';
import { Body, readString } from '../validation';
import { ActionDef, writes } from './action';
import { CognitiveView } from './cognitive-view';
import { requirePresent } from './required';
import { ActionContext, ChangeSet } from './decision';
import {
  checkRequiredTriggers,
  checkTriggerShapes,
  createTriggerEdges,
  parseTriggers,
  rawTriggerCount,
  RefCheck,
  ResolvedTrigger,
  resolveTriggers,
  TriggerDef,
  triggerPropsOf,
} from './triggers';

export interface DefaultsInput {
  label: string;
  body: Body;
  ctx: ActionContext;
  /** distinct uids given in a trigger field (before syntax checks) */
  count(field: string): number;
}

export interface OverridesInput {
  label: string;
  body: Body;
  ctx: ActionContext;
  trigger(field: string): ResolvedTrigger | undefined;
}

/**
 * A create action as data: the node type, its default props ("x = label"), the trigger
 * fields with their edges, and the server-set fields. One table row per action.
 */
export interface CreateSpec {
  readonly nodeType: string;
  readonly layer?: Layer;
  /** label used when the request has none; without it a label is required */
  readonly defaultLabel?: string;
  readonly triggers?: readonly TriggerDef[];
  /** props the caller did not send take these values */
  readonly defaults?: (c: DefaultsInput) => Record<string, unknown>;
  /** server-set props that win over the caller's (computed once references are loaded) */
  readonly overrides?: (c: OverridesInput) => Record<string, unknown>;
  /** extra checks of other request fields (§4.0 steps 3–4) */
  readonly validate?: (body: Body) => void;
  /** fields added to the CreateResult */
  readonly extras?: (node: NodeRecord) => Record<string, unknown>;
}

export interface PlannedCreate {
  cs: ChangeSet;
  node: NodeRecord;
  triggers: ResolvedTrigger[];
  /** nodes of `extraRefs`, in order */
  extra: NodeRecord[];
}

export interface PlanOptions {
  /** references checked with the triggers that are not trigger fields (host uids) */
  extraRefs?: readonly RefCheck[];
  /** state guards run after every reference is loaded and before anything is staged */
  guard?: (c: { node: NodeRecord; triggers: ResolvedTrigger[]; extra: NodeRecord[] }) => Promise<void> | void;
}

/** The request shape of a create (§4.0 fields and its triggers): never taken as flattened props. */
function requestFieldsOf(defs: readonly TriggerDef[]): ReadonlySet<string> {
  const out = new Set(COGNITIVE_REQUEST_FIELDS);
  for (const d of defs) {
    out.add(d.field);
    for (const a of d.aliases ?? []) out.add(a);
  }
  return out;
}

/**
 * The props a create's caller sent, as upserts compare them: `props` over the flattened props
 * beside the label (§2.8), aliases not yet resolved. Shapes are checked by `planCreate`.
 */
export function sentProps(body: Body, nodeType: string, triggerFields: readonly string[] = []): Record<string, unknown> {
  const raw = body.props;
  const props = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const def = getNodeType(nodeType)!;
  const reserved = new Set([...COGNITIVE_REQUEST_FIELDS, ...triggerFields]);
  return { ...flattenedProps(body, compileSchema(def).byName, nodeType, reserved), ...props };
}

/** The label of a create: trimmed, or the action's default label (§1.5). */
export function readLabel(body: Body, defaultLabel?: string): string {
  const label = readString(body, 'label', { trim: true, max: LABEL_MAX });
  if (label !== undefined) return label;
  if (defaultLabel === undefined) throw Errors.missingField('label');
  return defaultLabel;
}

/**
 * Validates a create in the §4.0 order, loads its references, and stages the node and its
 * trigger edges. Callers add further changes to the returned ChangeSet.
 */
export async function planCreate(spec: CreateSpec, body: Body, view: CognitiveView, ctx: ActionContext, opts: PlanOptions = {}): Promise<PlannedCreate> {
  const defs = spec.triggers ?? [];
  // 3. required fields, present whatever their type (a label of the wrong type is step 4)
  if (spec.defaultLabel === undefined) requirePresent(body, ['label']);
  checkRequiredTriggers(body, defs);
  // 4. field types
  const label = readLabel(body, spec.defaultLabel);
  checkTriggerShapes(body, defs);
  spec.validate?.(body);
  // 4–5. node fields and props
  const count = (field: string) => {
    const d = defs.find((t) => t.field === field);
    return d ? rawTriggerCount(body, d) : 0;
  };
  const aliasTexts: string[] = [];
  const node = decideCreateNode(body, ctx.uuid(), ctx, {
    forcedType: spec.nodeType,
    forcedLayer: spec.layer,
    defaultLabel: spec.defaultLabel,
    propsDefaults: spec.defaults?.({ label, body, ctx, count }),
    nodeAliases: aliasTexts,
    flattenExcept: requestFieldsOf(defs),
  });
  const aliases = decideNodeAliases(node, aliasTexts);
  // 6–8. uid syntax, liveness, host types
  const parsed = parseTriggers(body, defs);
  const { triggers, extra } = await resolveTriggers(view, parsed, opts.extraRefs);
  const overrides = spec.overrides?.({ label, body, ctx, trigger: (f) => triggers.find((t) => t.def.field === f) }) ?? {};
  Object.assign(node.props, triggerPropsOf(parsed), overrides);
  // 9. state guards: the node they guard is already what the request would write
  ctx.wouldCreate?.(node);
  await opts.guard?.({ node, triggers, extra });
  // 10. stage
  const cs = new ChangeSet(ctx);
  cs.createNode(node);
  for (const a of aliases) cs.setAlias(a);
  await createTriggerEdges(cs, view, node, triggers);
  return { cs, node, triggers, extra };
}

/** An action that only creates a node with its trigger edges: 201 CreateResult. */
export function createAction(spec: CreateSpec): ActionDef {
  const action = writes(async (body, view, ctx, action) => {
    const { cs, node } = await planCreate(spec, body, view, ctx);
    return cs.createResult(node, action, spec.extras?.(node));
  });
  return { ...action, creates: { nodeType: spec.nodeType, triggers: spec.triggers ?? [], labelRequired: spec.defaultLabel === undefined } };
}
