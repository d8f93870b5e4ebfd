/**
 * @nestjs/swagger emits OpenAPI 3.0 schemas; the published document is 3.1 so that its schemas
 * are plain JSON Schema (what client generators and validators expect). Only the 3.0-isms that
 * differ in 3.1 are rewritten: `nullable` and boolean `exclusiveMinimum`/`exclusiveMaximum`.
 */
export function toOpenApi31<T extends Record<string, any>>(doc: T): T {
  const out: Record<string, any> = structuredClone(doc);
  out.openapi = '3.1.0';
  const components = out.components ?? {};
  for (const name of Object.keys(components.schemas ?? {})) components.schemas[name] = schema31(components.schemas[name]);
  for (const p of Object.values<any>(components.parameters ?? {})) parameter31(p);
  for (const b of Object.values<any>(components.requestBodies ?? {})) content31(b);
  for (const r of Object.values<any>(components.responses ?? {})) response31(r);
  for (const item of Object.values<any>(out.paths ?? {})) {
    for (const p of item.parameters ?? []) parameter31(p);
    for (const [method, op] of Object.entries<any>(item)) {
      if (method === 'parameters' || typeof op !== 'object' || op === null) continue;
      for (const p of op.parameters ?? []) parameter31(p);
      if (op.requestBody) content31(op.requestBody);
      for (const r of Object.values<any>(op.responses ?? {})) response31(r);
    }
  }
  return out as T;
}

function parameter31(p: any): void {
  if (p?.schema) p.schema = schema31(p.schema);
  if (p?.content) content31(p);
}

function response31(r: any): void {
  if (!r) return;
  content31(r);
  for (const h of Object.values<any>(r.headers ?? {})) parameter31(h);
}

function content31(holder: any): void {
  for (const media of Object.values<any>(holder?.content ?? {})) if (media?.schema) media.schema = schema31(media.schema);
}

/** One schema (and everything nested in it) from 3.0 to 3.1 form. */
export function schema31(input: any): any {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const s: Record<string, any> = { ...input };
  for (const key of ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']) {
    if (typeof s[key] === 'object') s[key] = schema31(s[key]);
  }
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions']) {
    if (s[key] && typeof s[key] === 'object') s[key] = Object.fromEntries(Object.entries(s[key]).map(([k, v]) => [k, schema31(v)]));
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) if (Array.isArray(s[key])) s[key] = s[key].map(schema31);
  for (const [bound, flag] of [['minimum', 'exclusiveMinimum'], ['maximum', 'exclusiveMaximum']] as const) {
    if (typeof s[flag] !== 'boolean') continue;
    if (s[flag] && typeof s[bound] === 'number') {
      s[flag] = s[bound];
      delete s[bound];
    } else delete s[flag];
  }
  const nullable = s.nullable === true;
  delete s.nullable;
  if (!nullable) return s;
  if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
  if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.type)) return s.type.includes('null') ? s : { ...s, type: [...s.type, 'null'] };
  // no type of its own ($ref, allOf…): the value is that schema or null
  if (s.$ref || s.allOf || s.oneOf || s.anyOf) {
    const { description, deprecated, ...rest } = s;
    return { ...(description !== undefined ? { description } : {}), ...(deprecated !== undefined ? { deprecated } : {}), anyOf: [rest, { type: 'null' }] };
  }
  return s; // untyped schema already admits null
}
