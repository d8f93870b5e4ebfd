import { Errors } from '../errors/domain-error';
import { Layer, LAYERS } from '../records/node-record';
import { NODE_TYPE_NAME_RE, canonicalCustomName, typeKey } from './names';
import { findNodeTypeBySpelling, NodeTypeDef } from './node-types';
import { isPlainObject } from './schema';

export interface ResolvedNodeType {
  /** Canonical name: the built-in's name, or the PascalCase custom name. */
  name: string;
  /** null for custom types (free-form props). */
  def: NodeTypeDef | null;
  layer: Layer;
}

export interface ResolveNodeTypeOptions {
  /** Concept's layer when the request has no usable `layer` (`/epistemic/structure` passes epistemic). */
  defaultLayerForConcept?: Layer;
}

const LAYER_SET: ReadonlySet<string> = new Set(LAYERS);

function blank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

function checkName(v: unknown, field: string, isTag: boolean): string {
  if (typeof v !== 'string') {
    if (isTag) throw Errors.invalidProps(`${field} must be a string`, { field });
    throw Errors.invalidField(field, `${field} must be a string`);
  }
  if (!NODE_TYPE_NAME_RE.test(v)) throw Errors.invalidField(field, `${field} must match ${NODE_TYPE_NAME_RE.source}`);
  return v;
}

/** Canonical name of a node type spelling, without syntax checks. */
export function canonicalNodeTypeName(name: string): string {
  return findNodeTypeBySpelling(name)?.name ?? canonicalCustomName(name);
}

/**
 * Resolves the type and layer of a node being created (REFERENCE §2.5, §2.4, §2.2).
 * Built-ins have a fixed layer (a sent layer is ignored), except Concept, which is epistemic
 * when asked; custom types take the sent layer, default reality.
 */
export function resolveNodeType(
  input: { node_type?: unknown; props?: unknown; layer?: unknown },
  opts: ResolveNodeTypeOptions = {},
): ResolvedNodeType {
  const props = input.props;
  if (props !== undefined && props !== null && !isPlainObject(props)) {
    throw Errors.invalidProps('props must be a JSON object', { field: 'props' });
  }
  let layerIn: Layer | undefined;
  if (input.layer !== undefined && input.layer !== null) {
    if (typeof input.layer !== 'string' || !LAYER_SET.has(input.layer)) {
      throw Errors.invalidField('layer', `layer must be one of: ${LAYERS.join(', ')}`, { expected: [...LAYERS] });
    }
    layerIn = input.layer as Layer;
  }

  const fromType = blank(input.node_type) ? undefined : checkName(input.node_type, 'node_type', false);
  const tag = props ? (props as Record<string, unknown>)._type : undefined;
  const fromTag = blank(tag) ? undefined : checkName(tag, 'props._type', true);
  const spelled = fromType ?? fromTag;
  if (spelled === undefined) throw Errors.missingField('node_type');
  if (fromType !== undefined && fromTag !== undefined && typeKey(fromType) !== typeKey(fromTag)) {
    // errors name node types as they are emitted: built-in or PascalCase custom (§2.4)
    throw Errors.invalidProps(`props._type '${canonicalNodeTypeName(fromTag)}' contradicts node_type '${canonicalNodeTypeName(fromType)}'`, {
      field: 'props._type',
    });
  }

  const def = findNodeTypeBySpelling(spelled) ?? null;
  if (!def) return { name: canonicalCustomName(spelled), def: null, layer: layerIn ?? 'reality' };
  if (def.name === 'Concept') {
    const layer = layerIn === 'reality' || layerIn === 'epistemic' ? layerIn : (opts.defaultLayerForConcept ?? def.layer);
    return { name: def.name, def, layer };
  }
  return { name: def.name, def, layer: def.layer };
}
