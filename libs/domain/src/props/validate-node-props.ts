import { NodeTypeDef } from '../catalogue/node-types';
import { resolvePropsAliases } from '../catalogue/client-aliases';
import { defaultPropsOf, isPlainObject, mergeProps, PropsSchemaDef, PropsValidationOptions, validatePropsAgainst } from '../catalogue/schema';

export type { PropsValidationOptions } from '../catalogue/schema';

/**
 * Validates node props (REFERENCE §2.6). Create mode returns the full output form tagged
 * `_type`; patch mode returns only the validated keys (null = reset to default).
 * Built-ins: unknown field → 422 unknown_props_fields; wrong type, 0–1 range or closed
 * vocabulary → 400 invalid_props. Custom types (def null): free-form, only `_type` is checked.
 * Client values of server-maintained Series cache fields are dropped.
 */
export function validateNodeProps(
  typeName: string,
  def: NodeTypeDef | null,
  props: unknown,
  opts: PropsValidationOptions,
): Record<string, unknown> {
  // §2.8: a built-in's props aliases are taken as their fields wherever props are validated
  const input = def && isPlainObject(props) ? resolvePropsAliases(typeName, props, { takeNodeAliases: false }).props : props;
  return validatePropsAgainst('node', typeName, def, input, opts);
}

/** Shallow-merges a validated patch into current props; null restores the default. */
export function applyPropsPatch(
  def: PropsSchemaDef | null,
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  return mergeProps(def, current, patch);
}

/** Every field of the type at its default, tagged `_type`. */
export function defaultPropsFor(def: PropsSchemaDef): Record<string, unknown> & { _type: string } {
  return defaultPropsOf(def);
}

/** Names of the type's server-maintained fields (Series cache, Skill status/review). */
export function serverMaintainedFields(def: PropsSchemaDef | null): string[] {
  return def ? def.fields.filter((f) => f.serverMaintained).map((f) => f.name) : [];
}
