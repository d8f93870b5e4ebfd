import * as fs from 'node:fs';
import * as path from 'node:path';
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

/** What an answer recorder needs of a response: its status, parsed body and raw text. */
export interface RecordedAnswer {
  status: number;
  body: any;
  text: string;
}

/**
 * Collects, over many calls, each answer that has the wrong status or that the document does
 * not describe (so one run names them all), and the operations checked. With
 * OPENAPI_ANSWERS_DUMP set to a directory, every answer is also written there, to read when
 * describing a route.
 */
export class AnswerRecorder {
  readonly checked = new Set<string>();
  readonly failures: string[] = [];
  private check: ((method: string, path: string, status: number, body: unknown) => void) | null = null;
  private readonly dump = process.env.OPENAPI_ANSWERS_DUMP;

  use(doc: any): void {
    this.check = answerValidator(doc);
  }

  record(method: string, url: string, template: string, r: RecordedAnswer, status: number, note = ''): any {
    if (this.dump) {
      const name = `${method} ${template}${note ? ' ' + note : ''}`.replace(/[/{}?]/g, '_') + '.json';
      fs.writeFileSync(path.join(this.dump, name), JSON.stringify({ status: r.status, body: r.body }, null, 1));
    }
    if (r.status !== status) {
      this.failures.push(`${method} ${url} ${note}: status ${r.status}, expected ${status}: ${r.text.slice(0, 500)}`);
      return r.body;
    }
    try {
      this.check!(method, template, status, r.body);
      this.checked.add(`${method} ${template}`);
    } catch (e) {
      this.failures.push(`${note} ${(e as Error).message}`);
    }
    return r.body;
  }
}
