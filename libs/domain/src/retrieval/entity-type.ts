import { isPlainObject } from '../catalogue/schema';
import { Errors } from '../errors';

/** `props.entity_type` values that pick one of the six specific reality types (§4.2). */
const SPECIFIC: Record<string, string> = {
  person: 'Person',
  organization: 'Organization',
  nation: 'Nation',
  event: 'Event',
  place: 'Place',
  concept: 'Concept',
};

/** Which props field takes the label when absent, per type. */
const NAME_FIELD: Record<string, string> = { Person: 'full_name', Concept: 'name', Entity: 'canonical_name' };

export interface EntityCreationPlan {
  node_type: string;
  /** the caller's props, cleaned for the type (untagged) */
  props: Record<string, unknown>;
  /** defaults applied under the caller's props */
  defaults: Record<string, unknown>;
}

/**
 * Resolves the node type `/reality/entity create` makes (REFERENCE §4.2): a known
 * `entity_type` picks Person, Organization, Nation, Event, Place or Concept (and is removed,
 * since those schemas lack it); anything else makes an Entity that keeps it, or `"other"`.
 */
export function planEntityCreation(label: string, rawProps: unknown): EntityCreationPlan {
  if (rawProps !== undefined && rawProps !== null && !isPlainObject(rawProps)) throw Errors.invalidProps('props must be a JSON object', { field: 'props' });
  const props: Record<string, unknown> = { ...((rawProps as Record<string, unknown> | null | undefined) ?? {}) };
  delete props._type;
  const given = props.entity_type;
  if (given !== undefined && given !== null && typeof given !== 'string')
    throw Errors.invalidProps('props.entity_type must be a string', { field: 'props.entity_type' });
  const specific = typeof given === 'string' ? SPECIFIC[given.trim().toLowerCase()] : undefined;
  const node_type = specific ?? 'Entity';
  if (specific) delete props.entity_type;
  const defaults: Record<string, unknown> = {};
  if (node_type === 'Entity') defaults.entity_type = 'other';
  const nameField = NAME_FIELD[node_type];
  if (nameField) defaults[nameField] = label;
  return { node_type, props, defaults };
}
