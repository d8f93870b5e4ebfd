import { NodeTypeDef } from '../catalogue/node-types';
import { compileSchema, PropsSchemaDef } from '../catalogue/schema';

function push(parts: string[], v: unknown): void {
  if (typeof v === 'string') {
    if (v) parts.push(v);
  } else if (Array.isArray(v)) {
    for (const x of v) if (typeof x === 'string' && x) parts.push(x);
  }
}

/**
 * The props part of a node's full-text body: every string and string[] value, newline-joined.
 * Built-ins use their string fields in table order; custom types every top-level string or
 * string array (except `_type`), and a domain object also the string values of its `fields`.
 */
export function searchableText(def: NodeTypeDef | PropsSchemaDef | null, props: Record<string, unknown> | null | undefined): string {
  return searchableParts(def, props).join('\n');
}

/**
 * `searchableParts` without the strings a node already shows elsewhere (`taken`: its label and
 * summary) and without repeats, in the same order: each distinct string once. A Claim's
 * `content` or a Question's `text` is usually its label word for word.
 */
export function distinctSearchableParts(def: NodeTypeDef | PropsSchemaDef | null, props: Record<string, unknown> | null | undefined, taken: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of searchableParts(def, props)) if (!taken.includes(p) && !out.includes(p)) out.push(p);
  return out;
}

/** The values `searchableText` joins, in the same order. */
export function searchableParts(def: NodeTypeDef | PropsSchemaDef | null, props: Record<string, unknown> | null | undefined): string[] {
  const parts: string[] = [];
  if (!props) return parts;
  if (def) {
    for (const f of compileSchema(def).textFields) push(parts, props[f.name]);
  } else {
    for (const k of Object.keys(props)) if (k !== '_type') push(parts, props[k]);
    // a domain object's typed values live one level down (REFERENCE §11): a contract is found
    // by its counterparty or number as much as by its name
    const fields = props.fields;
    if (typeof props.object_type_id === 'string' && typeof fields === 'object' && fields !== null && !Array.isArray(fields))
      for (const v of Object.values(fields)) push(parts, v);
  }
  return parts;
}
