import type { JsonSchema } from './chat-model.port';

/**
 * Checks a value against the subset of JSON Schema that output schemas use: `type` (one or a
 * list; `integer` included), `enum`, `const`, `required`, `properties`,
 * `additionalProperties: false`, `items`, `minItems`/`maxItems`, `anyOf`. Returns the
 * problems as `$.path: what is wrong` (empty when valid); what else a schema says is not checked.
 */
export function validateJson(schema: JsonSchema, value: unknown, path = '$'): string[] {
  const errors: string[] = [];
  const s = schema as {
    type?: string | string[];
    enum?: unknown[];
    const?: unknown;
    required?: string[];
    properties?: Record<string, JsonSchema>;
    additionalProperties?: boolean | JsonSchema;
    items?: JsonSchema;
    minItems?: number;
    maxItems?: number;
    anyOf?: JsonSchema[];
  };
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => isType(t, value))) {
      errors.push(`${path}: expected ${types.join(' or ')}, got ${typeName(value)}`);
      return errors;
    }
  }
  if (s.enum && !s.enum.some((e) => same(e, value))) errors.push(`${path}: must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if ('const' in s && !same(s.const, value)) errors.push(`${path}: must be ${JSON.stringify(s.const)}`);
  if (s.anyOf && !s.anyOf.some((alt) => validateJson(alt, value, path).length === 0)) errors.push(`${path}: matches none of the allowed shapes`);
  if (isObject(value)) {
    for (const key of s.required ?? []) if (!(key in value)) errors.push(`${path}: missing required property '${key}'`);
    for (const [key, v] of Object.entries(value)) {
      const sub = s.properties?.[key];
      if (sub) errors.push(...validateJson(sub, v, `${path}.${key}`));
      else if (s.additionalProperties === false) errors.push(`${path}: unexpected property '${key}'`);
      else if (isObject(s.additionalProperties)) errors.push(...validateJson(s.additionalProperties, v, `${path}.${key}`));
    }
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) errors.push(`${path}: needs at least ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) errors.push(`${path}: allows at most ${s.maxItems} items`);
    if (s.items) value.forEach((item, i) => errors.push(...validateJson(s.items!, item, `${path}[${i}]`)));
  }
  return errors;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isType(t: string, v: unknown): boolean {
  switch (t) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    default:
      return true;
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isInteger(v)) return 'integer';
  return typeof v;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
