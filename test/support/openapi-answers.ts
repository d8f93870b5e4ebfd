import Ajv2020 from 'ajv/dist/2020';

/**
 * Validates an answer against the 2xx schema its operation declares in the OpenAPI document,
 * with every object that lists its fields closed (`additionalProperties: false`), so a field the service sends and the document omits fails as surely as a documented
 * field that is missing. Throws, naming the operation, the errors and the body.
 */
export function answerValidator(doc: any): (method: string, path: string, status: number, body: unknown) => void {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)) && /T.*Z$/.test(s));
  const closed = (schema: any): any => {
    if (Array.isArray(schema)) return schema.map(closed);
    if (!schema || typeof schema !== 'object') return schema;
    const out: any = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
    // a record the document leaves open to clients (NodeRecord, EdgeRecord: additive evolution)
    // is still held to the fields it lists; maps without listed fields (props, counts) stay open
    if (out.properties && typeof out.additionalProperties !== 'object') out.additionalProperties = false;
    return out;
  };
  // allOf (a class extending another, or a field typed by a shared schema) cannot be closed
  // member by member: flatten it first; a part that is open keeps the whole open
  const flatten = (schema: any): any => {
    if (Array.isArray(schema)) return schema.map(flatten);
    if (!schema || typeof schema !== 'object') return schema;
    if (schema.$ref) return flatten(doc.components.schemas[schema.$ref.split('/').pop()]);
    const s: any = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, flatten(v)]));
    if (!s.allOf) return s;
    const merged: any = { type: 'object', properties: {}, required: [] };
    for (const part of s.allOf) {
      Object.assign(merged.properties, part.properties ?? {});
      merged.required.push(...(part.required ?? []));
      if (part.additionalProperties !== undefined) merged.additionalProperties = part.additionalProperties;
    }
    Object.assign(merged.properties, s.properties ?? {});
    merged.required.push(...(s.required ?? []));
    if (s.nullable || s.type?.includes?.('null')) return { anyOf: [merged, { type: 'null' }] };
    return merged;
  };
  return (method, path, status, body) => {
    const op = doc.paths[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`${method} ${path} is not in the document`);
    const schema = op.responses?.[String(status)]?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${method} ${path} declares no schema for ${status}`);
    if (!(schema.$ref || schema.type || schema.anyOf || schema.oneOf || schema.allOf)) throw new Error(`${method} ${path} declares no shape for ${status}`);
    const check = ajv.compile(closed(flatten(schema)));
    if (!check(body)) throw new Error(`${method} ${path} ${status}: ${JSON.stringify(check.errors, null, 1)}\n${JSON.stringify(body).slice(0, 3000)}`);
  };
}
