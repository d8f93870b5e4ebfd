import { propsAliasesOf, TRIGGER_ALIASES } from './client-aliases';
import { EDGE_TYPES } from './edge-types';
import { NODE_TYPES } from './node-types';
import { PropField } from './prop-field';
import { PropsSchemaDef } from './schema';

function fieldSchema(f: PropField): Record<string, unknown> {
  const s: Record<string, unknown> =
    f.kind === 'string[]'
      ? { type: 'array', items: { type: 'string' } }
      : f.kind === 'object'
        ? { type: 'object', additionalProperties: true }
        : { type: f.kind };
  if (f.nullable) s.nullable = true;
  // OpenAPI 3.0: a nullable enum must list null itself.
  if (f.enum) s.enum = f.nullable ? [...f.enum, null] : [...f.enum];
  if (f.unit) {
    s.minimum = 0;
    s.maximum = 1;
  }
  if (f.default !== undefined) s.default = f.default;
  if (f.serverMaintained) {
    s.readOnly = true;
    s.description = f.guarded ? 'maintained by the server; changes only through its dedicated action' : 'maintained by the server; client values are ignored';
  }
  return s;
}

/** JSON Schema (OpenAPI 3.0 dialect) of one type's props object. */
export function propsSchemaFor(def: PropsSchemaDef): Record<string, unknown> {
  // `const` is 3.1 / JSON Schema; the one-value `enum` is what 3.0 tooling understands.
  const properties: Record<string, unknown> = { _type: { type: 'string', enum: [def.name], const: def.name } };
  for (const f of def.fields) properties[f.name] = fieldSchema(f);
  const schema: Record<string, unknown> = { type: 'object', title: `${def.name}Props`, properties, additionalProperties: false };
  const required = def.fields.filter((f) => f.required).map((f) => f.name);
  if (required.length) schema.required = required;
  return schema;
}

/** Props schema of every built-in node type, keyed by type name; §2.8 aliases follow the fields. */
export function nodePropsSchemas(): Record<string, object> {
  const out: Record<string, object> = {};
  for (const t of NODE_TYPES) out[t.name] = withPropsAliases(t.name, propsSchemaFor(t));
  return out;
}

/** The type's props aliases (§2.8) as deprecated alternatives of the fields they stand for. */
function withPropsAliases(typeName: string, schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown>;
  for (const r of propsAliasesOf(typeName)) {
    properties[r.alias] =
      r.field === null
        ? { type: 'string', deprecated: true, writeOnly: true, description: 'registered as an alias of the node (§8.4) on create and update; not stored in props' }
        : { ...(properties[r.field] as object), deprecated: true, writeOnly: true, description: `alias of ${r.field}; ${r.field} wins when both are sent` };
  }
  return schema;
}

/**
 * The trigger aliases of each cognitive route (§2.8), as deprecated request body properties,
 * keyed by path (`/agent/plan`).
 */
export function triggerAliasBodySchemas(): Record<string, { properties: Record<string, object>; props: Record<string, object> }> {
  const out: Record<string, { properties: Record<string, object>; props: Record<string, object> }> = {};
  for (const r of TRIGGER_ALIASES) {
    const path = `/${r.path}`;
    const body = (out[path] ??= { properties: {}, props: {} });
    const line = `${r.actions.join(', ')}: alias of ${r.field}${r.note ? ` (${r.note})` : ''}`;
    // a value the clients send inside props (`props.approved`): a deprecated key of the props object
    const inProps = r.alias.startsWith('props.');
    const name = inProps ? r.alias.slice('props.'.length) : r.alias;
    const into = inProps ? body.props : body.properties;
    const prev = into[name] as { description?: string } | undefined;
    into[name] = { type: TRIGGER_FIELD_TYPES[r.field] ?? 'string', deprecated: true, description: prev?.description ? `${prev.description}; ${line}` : line };
  }
  return out;
}

/** The JSON type of a trigger alias's field when it is not a uid string. */
const TRIGGER_FIELD_TYPES: Readonly<Record<string, string>> = { approved: 'boolean' };

/** Props schema of every built-in edge type, keyed by type name. */
export function edgePropsSchemas(): Record<string, object> {
  const out: Record<string, object> = {};
  for (const t of EDGE_TYPES) out[t.name] = propsSchemaFor(t);
  return out;
}
