import {
  compileSchema,
  flattenedProps,
  NodeTypeDef,
  normaliseText,
  resolvePropsAliases,
  applyPropsPatch,
  deriveSummary,
  getNodeType,
  resolveNodeType,
  validateNodeProps,
} from '../catalogue';
import { DomainError, Errors } from '../errors';
import { LAYERS, Layer, NodeRecord, PRIVACY_LEVELS, PrivacyLevel } from '../records';
import { Body, readNumber, readObject, readString, readUnit } from '../validation';
import { CLASSIFICATIONS, Classification, DEFAULT_CLASSIFICATION, isClassification } from '../governance/classification';
import { WriteContext } from './write-context';

export const LABEL_MAX = 1000;
export const SUMMARY_MAX = 10_000;

export interface CreateNodeOptions {
  /** error field prefix for nested items, e.g. 'claim' → 'claim.label' */
  prefix?: string;
  /** cognitive actions fix the type; props then arrive untagged */
  forcedType?: string;
  forcedLayer?: Layer;
  /** label used when the body has none (cognitive defaults such as "Session") */
  defaultLabel?: string;
  /** action defaults, shallow-merged UNDER the caller's props */
  propsDefaults?: Record<string, unknown>;
  /** values that always win over the caller's props (server-set fields) */
  propsOverrides?: Record<string, unknown>;
  /** /import keeps a Skill's stored status */
  keepSkillStatus?: boolean;
  /**
   * Collects the texts a client sent to be registered as aliases of the new node (§2.8
   * `canonical_name` on Organization, Nation, Event, Place). Without it they are unknown fields.
   */
  nodeAliases?: string[];
  /**
   * Flattened props (§2.8): keys of the body outside these request fields that are props
   * fields (or aliases) of the type are taken as props; `props` wins over them.
   */
  flattenExcept?: ReadonlySet<string>;
}

function named(prefix: string | undefined, field: string): string {
  return prefix ? `${prefix}.${field}` : field;
}

export function readPrivacy(body: Body, prefix?: string): PrivacyLevel | undefined {
  const field = body.privacy_level !== undefined && body.privacy_level !== null ? 'privacy_level' : 'privacy';
  const v = readString(body, field, { label: named(prefix, 'privacy_level') });
  if (v === undefined) return undefined;
  if (!PRIVACY_LEVELS.includes(v as PrivacyLevel))
    throw Errors.invalidField(named(prefix, 'privacy_level'), `privacy_level must be one of: ${PRIVACY_LEVELS.join(', ')}`);
  return v as PrivacyLevel;
}

/** `classification` (REFERENCE §13.1): one of the ordered levels, else 400 invalid_field. */
export function readClassification(body: Body, prefix?: string): Classification | undefined {
  const v = body.classification;
  if (v === undefined || v === null) return undefined;
  if (!isClassification(v))
    throw Errors.invalidField(named(prefix, 'classification'), `classification must be one of: ${CLASSIFICATIONS.join(', ')}`);
  return v;
}

function readAgentId(body: Body, prefix?: string): string | undefined {
  return readString(body, 'agent_id', { max: 128, label: named(prefix, 'agent_id') });
}

/** Validates the top-level fields of a node write (labels, scores, privacy). */
export function readNodeFields(body: Body, opts: { prefix?: string; requireLabel?: boolean; defaultLabel?: string }) {
  const p = opts.prefix;
  let label = readString(body, 'label', { trim: true, max: LABEL_MAX, label: named(p, 'label') });
  if (label === undefined) {
    if (opts.defaultLabel !== undefined) label = opts.defaultLabel;
    else if (opts.requireLabel) throw Errors.missingField(named(p, 'label'));
  }
  const summary = readString(body, 'summary', { max: SUMMARY_MAX, label: named(p, 'summary') });
  const confidence = readUnit(body, 'confidence', named(p, 'confidence'));
  const salience = readUnit(body, 'salience', named(p, 'salience'));
  const privacy_level = readPrivacy(body, p);
  const agent_id = readAgentId(body, p);
  const classification = readClassification(body, p);
  return { label, summary, confidence, salience, privacy_level, agent_id, classification };
}

/** Strips `_type` from cognitive props after checking it matches the forced type. */
function cognitiveProps(props: Body | undefined, type: string, field: string): Body {
  if (!props) return {};
  const { _type, ...rest } = props;
  if (_type !== undefined && _type !== null) {
    const resolved = resolveNodeType({ node_type: type, props: { _type } });
    if (resolved.name !== type) throw Errors.invalidProps(`${field}._type '${String(_type)}' contradicts node type ${type}`, { field });
  }
  return rest;
}

/**
 * Decides a node creation: validates everything and returns the complete record at
 * version 1. Pure: uid and time come from the caller.
 */
export function decideCreateNode(body: Body, uid: string, ctx: WriteContext, opts: CreateNodeOptions = {}): NodeRecord {
  const p = opts.prefix;
  const f = readNodeFields(body, { prefix: p, requireLabel: true, defaultLabel: opts.defaultLabel });
  const label = f.label as string;
  const propsField = named(p, 'props');
  const rawProps = readObject(body, 'props', { label: propsField, code: 'invalid_props' });

  let typeName: string;
  let def: NodeTypeDef | null;
  let layer: Layer;
  let props: Body;
  if (opts.forcedType) {
    typeName = opts.forcedType;
    def = getNodeType(typeName) ?? null;
    layer = opts.forcedLayer ?? (def ? def.layer : 'reality');
    props = cognitiveProps(rawProps, typeName, propsField);
  } else {
    const resolved = resolveNodeType({ node_type: body.node_type, props: rawProps, layer: body.layer });
    typeName = resolved.name;
    def = resolved.def;
    layer = resolved.layer;
    props = rawProps ? { ...rawProps } : {};
    delete props._type;
  }
  if (def) {
    if (opts.flattenExcept) props = { ...flattenedProps(body, compileSchema(def).byName, typeName, opts.flattenExcept), ...props };
    // before the action defaults are merged in: `question` must beat a default `text`
    const aliased = resolvePropsAliases(typeName, props, { takeNodeAliases: opts.nodeAliases !== undefined, prefix: propsField });
    props = aliased.props;
    opts.nodeAliases?.push(...aliased.nodeAliases);
  }
  // a custom type's props are free-form (REFERENCE §2.4): a null the client sent is a value
  const sent = def || opts.forcedType ? dropNulls(props) : props;
  const merged: Body = { ...(opts.propsDefaults ?? {}), ...sent, ...(opts.propsOverrides ?? {}) };
  // a Space's name defaults to its label (REFERENCE §13.1)
  if (typeName === 'Space' && (merged.name === undefined || merged.name === '')) merged.name = label;
  if (typeName === 'Skill' && !opts.keepSkillStatus) merged.status = 'candidate';
  const full = validateNodeProps(typeName, def, { ...merged, _type: typeName }, { mode: 'create', fieldPrefix: propsField });
  if (typeName === 'Skill' && !opts.keepSkillStatus) full.status = 'candidate';

  const summary = f.summary !== undefined && f.summary.trim() !== '' ? f.summary : deriveSummary(full, label);
  return {
    uid,
    label,
    summary,
    node_type: typeName,
    layer,
    confidence: f.confidence ?? 1.0,
    salience: f.salience ?? 0.5,
    privacy_level: f.privacy_level ?? 'private',
    classification: f.classification ?? ctx.default_classification ?? DEFAULT_CLASSIFICATION,
    props: full as NodeRecord['props'],
    agent_id: ctx.agent_id,
    created_at: ctx.now,
    updated_at: ctx.now,
    tombstone_at: null,
    tombstone_reason: null,
    tombstone_by: null,
    version: 1,
  };
}

function dropNulls(o: Body): Body {
  const out: Body = {};
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

export interface UpdateNodeOptions {
  /** props key name: 'props' for PATCH, 'props_patch' for /evolve update */
  propsField?: 'props' | 'props_patch';
  /** server-side transitions (skills) may change status */
  allowSkillStatus?: boolean;
  /**
   * Collects the texts a client sent to be registered as aliases of the node (§2.8
   * `canonical_name` on Organization, Nation, Event, Place). Without it they are unknown fields.
   */
  nodeAliases?: string[];
}

export function checkExpectedVersion(body: Body, current: number): void {
  const expected = readNumber(body, 'expected_version', { integer: true, min: 1 });
  if (expected !== undefined && expected !== current) throw Errors.versionConflict(current, expected);
}

/**
 * Decides a versioned update (PATCH /node, /evolve update). Always writes a version, even
 * when nothing changes (a "touch" re-validates derived nodes, REFERENCE §1.7).
 */
export function decideUpdateNode(current: NodeRecord, body: Body, ctx: WriteContext, opts: UpdateNodeOptions = {}): NodeRecord {
  if (current.tombstone_at !== null) throw Errors.tombstoned('node', current.uid);
  const field = opts.propsField ?? 'props';
  const f = readNodeFields(body, {});
  if (body.label !== undefined && body.label !== null && f.label === undefined) throw Errors.invalidField('label', 'label must not be blank');
  const rawPatch = readObject(body, field, { code: 'invalid_props' });
  checkExpectedVersion(body, current.version);

  let props = current.props;
  if (rawPatch) {
    const { _type, ...sent } = rawPatch;
    let patch: Body = sent;
    if (_type !== undefined && _type !== null) {
      const resolved = resolveNodeType({ node_type: current.node_type, props: { _type } });
      if (resolved.name !== current.node_type)
        throw Errors.invalidProps(`${field}._type '${String(_type)}' contradicts node type ${current.node_type}`, { field });
    }
    const def = getNodeType(current.node_type) ?? null;
    if (def && opts.nodeAliases) {
      const aliased = resolvePropsAliases(current.node_type, patch, { takeNodeAliases: true, prefix: field });
      patch = aliased.props;
      opts.nodeAliases.push(...aliased.nodeAliases);
    }
    const validated = validateNodeProps(current.node_type, def, { ...patch, _type: current.node_type }, { mode: 'patch', fieldPrefix: field });
    delete validated._type;
    if (current.node_type === 'Skill' && !opts.allowSkillStatus) {
      for (const k of Object.keys(validated)) {
        if (SKILL_GOVERNED_FIELDS.has(k) && validated[k] !== current.props[k])
          throw Errors.invalidTransition(`Skill ${k} changes only through /action/skill`, String(current.props.status ?? 'candidate'), []);
      }
    }
    props = applyPropsPatch(def, current.props, validated) as NodeRecord['props'];
  }
  return {
    ...current,
    label: f.label ?? current.label,
    summary: f.summary ?? current.summary,
    confidence: f.confidence ?? current.confidence,
    salience: f.salience ?? current.salience,
    privacy_level: f.privacy_level ?? current.privacy_level,
    ...(f.classification !== undefined ? { classification: f.classification } : {}),
    props,
    updated_at: ctx.now,
    version: current.version + 1,
  };
}

const SKILL_GOVERNED_FIELDS = new Set([
  'status',
  'reviewed_by',
  'reviewed_at',
  'review_notes',
  'approved_by',
  'approved_at',
  'rejected_reason',
  'deprecated_at',
  'deprecated_reason',
  'superseded_by_uid',
]);

/** null when the node is already tombstoned (an idempotent no-op). */
export function decideTombstoneNode(current: NodeRecord, reason: string | null, ctx: WriteContext, by?: string): NodeRecord | null {
  if (current.tombstone_at !== null) return null;
  return {
    ...current,
    tombstone_at: ctx.now,
    tombstone_reason: reason,
    tombstone_by: by ?? ctx.principal_id,
    updated_at: ctx.now,
    version: current.version + 1,
  };
}

/** null when the node is live (an idempotent no-op). */
export function decideRestoreNode(current: NodeRecord, ctx: WriteContext): NodeRecord | null {
  if (current.tombstone_at === null) return null;
  return { ...current, tombstone_at: null, tombstone_reason: null, tombstone_by: null, updated_at: ctx.now, version: current.version + 1 };
}

export function assertLayer(v: unknown, field = 'layer'): Layer {
  if (typeof v !== 'string' || !LAYERS.includes(v as Layer)) throw Errors.invalidField(field, `${field} must be one of: ${LAYERS.join(', ')}`);
  return v as Layer;
}

export { DomainError };

/** Longest alias text (§8.4), shared with `POST /alias`. */
export const NODE_ALIAS_TEXT_MAX = 500;

/** An alias a create registers for its new node, before it is stamped with a time. */
export interface NewNodeAlias {
  text: string;
  norm: string;
  canonical_uid: string;
  score: number;
}

/**
 * The aliases a create registers for its new node (score 1.0, one per normalised text), from
 * the texts `decideCreateNode` collected. A text without letters or digits cannot be matched.
 */
export function decideNodeAliases(node: NodeRecord, texts: readonly string[], field = 'props.canonical_name'): NewNodeAlias[] {
  const out: NewNodeAlias[] = [];
  for (const text of texts) {
    if (Array.from(text).length > NODE_ALIAS_TEXT_MAX) throw Errors.invalidProps(`${field} must be at most ${NODE_ALIAS_TEXT_MAX} characters`, { field });
    const norm = normaliseText(text);
    if (!norm) throw Errors.invalidProps(`${field} must contain at least one letter or digit`, { field });
    if (!out.some((a) => a.norm === norm)) out.push({ text, norm, canonical_uid: node.uid, score: 1.0 });
  }
  return out;
}
