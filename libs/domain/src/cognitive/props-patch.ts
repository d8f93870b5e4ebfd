import { getNodeType, validateNodeProps } from '../catalogue';
import { Errors } from '../errors';
import { Body, readObject } from '../validation';

/**
 * Reads and validates a transition's `props` (untagged) as a patch of the host's type, so a
 * bad props field fails at §4.0 step 5, before any reference is looked up.
 */
export function readPropsPatch(body: Body, nodeType: string): Record<string, unknown> {
  const raw = readObject(body, 'props', { code: 'invalid_props' });
  if (!raw) return {};
  const { _type, ...rest } = raw;
  if (_type !== undefined && _type !== null && _type !== nodeType)
    throw Errors.invalidProps(`props._type '${String(_type)}' contradicts node type ${nodeType}`, { field: 'props._type' });
  const patch = validateNodeProps(nodeType, getNodeType(nodeType) ?? null, { ...rest, _type: nodeType }, { mode: 'patch' });
  delete patch._type;
  // null means "reset to default" on PATCH; in a cognitive call it counts as omitted (§1.1)
  for (const k of Object.keys(patch)) if (patch[k] === null) delete patch[k];
  return patch;
}
