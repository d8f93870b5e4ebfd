import { getEdgeType, resolveEdgeType, typeKey, validateEdgeProps } from '../catalogue';
import { Errors } from '../errors';
import { EdgeRecord, NodeRecord } from '../records';
import { Body, readObject, readString, readUnit } from '../validation';
import { checkExpectedVersion } from './node-decider';
import { WriteContext } from './write-context';

export interface EdgeInput {
  edge_type?: unknown;
  weight?: number;
  confidence?: number;
  props?: Body;
}

/** Validates weight, confidence, agent_id and props; resolves the type (REFERENCE §3.5). */
export function readEdgeInput(body: Body, opts: { prefix?: string; allowProps?: boolean; cognitive?: boolean } = {}) {
  const name = (f: string) => (opts.prefix ? `${opts.prefix}.${f}` : f);
  const weight = readUnit(body, 'weight', name('weight'));
  const confidence = readUnit(body, 'confidence', name('confidence'));
  readString(body, 'agent_id', { max: 128, label: name('agent_id') });
  const props = opts.allowProps === false ? undefined : readObject(body, 'props', { label: name('props'), code: 'invalid_props' });
  // cognitive `relate` sends props untagged; the type comes from edge_type alone
  const typed = resolveEdgeType(
    { edge_type: body.edge_type, props: opts.cognitive && props ? { ...props, _type: props._type ?? undefined } : props },
    name('edge_type'),
  );
  const { _type, ...rest } = props ?? {};
  void _type;
  const fullProps = validateEdgeProps(typed.name, typed.def, { ...rest, _type: typed.name }, { mode: 'create' });
  return { edge_type: typed.name, weight, confidence, props: fullProps };
}

/**
 * Decides an edge creation between two live nodes. The edge's layer is its from-node's layer
 * at creation (REFERENCE §3.3).
 */
export function decideCreateEdge(
  input: { edge_type: string; weight?: number; confidence?: number; props?: Record<string, unknown> },
  from: NodeRecord,
  to: NodeRecord,
  uid: string,
  ctx: WriteContext,
): EdgeRecord {
  const def = getEdgeType(input.edge_type) ?? null;
  const props = input.props ?? validateEdgeProps(input.edge_type, def, { _type: input.edge_type }, { mode: 'create' });
  return {
    uid,
    from_uid: from.uid,
    to_uid: to.uid,
    edge_type: input.edge_type,
    layer: from.layer,
    weight: input.weight ?? 0.5,
    confidence: input.confidence ?? 1.0,
    props: props as EdgeRecord['props'],
    agent_id: ctx.agent_id,
    version: 1,
    created_at: ctx.now,
    updated_at: ctx.now,
    tombstone_at: null,
    tombstone_reason: null,
  };
}

/** Default-props edge for cognitive triggers (weight 0.5, confidence 1.0, named props only). */
export function triggerEdgeProps(edgeType: string, named: Record<string, unknown> = {}): Record<string, unknown> {
  const def = getEdgeType(edgeType) ?? null;
  return validateEdgeProps(edgeType, def, { ...named, _type: edgeType }, { mode: 'create' });
}

export function decideUpdateEdge(current: EdgeRecord, body: Body, ctx: WriteContext): EdgeRecord {
  if (current.tombstone_at !== null) throw Errors.tombstoned('edge', current.uid);
  for (const f of ['from_uid', 'to_uid'] as const) {
    if (body[f] !== undefined && body[f] !== null && body[f] !== current[f]) throw Errors.immutableField(f);
  }
  if (body.edge_type !== undefined && body.edge_type !== null) {
    if (typeof body.edge_type !== 'string' || typeKey(body.edge_type) !== typeKey(current.edge_type)) throw Errors.immutableField('edge_type');
  }
  const weight = readUnit(body, 'weight');
  const confidence = readUnit(body, 'confidence');
  const rawPatch = readObject(body, 'props', { code: 'invalid_props' });
  checkExpectedVersion(body, current.version);
  let props = current.props;
  if (rawPatch) {
    const { _type, ...patch } = rawPatch;
    if (_type !== undefined && _type !== null && (typeof _type !== 'string' || typeKey(_type) !== typeKey(current.edge_type)))
      throw Errors.immutableField('edge_type');
    const def = getEdgeType(current.edge_type) ?? null;
    const validated = validateEdgeProps(current.edge_type, def, { ...patch, _type: current.edge_type }, { mode: 'patch' });
    delete validated._type;
    const next: Record<string, unknown> = { ...current.props };
    for (const [k, v] of Object.entries(validated)) next[k] = v; // null resets to the default, which is null for edge props
    props = next as EdgeRecord['props'];
  }
  return {
    ...current,
    weight: weight ?? current.weight,
    confidence: confidence ?? current.confidence,
    props,
    updated_at: ctx.now,
    version: current.version + 1,
  };
}

export function decideTombstoneEdge(current: EdgeRecord, reason: string | null, ctx: WriteContext): EdgeRecord | null {
  if (current.tombstone_at !== null) return null;
  return { ...current, tombstone_at: ctx.now, tombstone_reason: reason, updated_at: ctx.now, version: current.version + 1 };
}

export function decideRestoreEdge(current: EdgeRecord, ctx: WriteContext): EdgeRecord | null {
  if (current.tombstone_at === null) return null;
  return { ...current, tombstone_at: null, tombstone_reason: null, updated_at: ctx.now, version: current.version + 1 };
}

/** Retargets one endpoint (entity merge). Counts as a versioned update. */
export function decideRetargetEdge(current: EdgeRecord, from: string, to: string, ctx: WriteContext): EdgeRecord {
  return { ...current, from_uid: from, to_uid: to, updated_at: ctx.now, version: current.version + 1 };
}
