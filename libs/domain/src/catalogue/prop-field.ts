export type PropKind = 'string' | 'number' | 'boolean' | 'string[]' | 'object';

export const PROP_KINDS: readonly PropKind[] = ['string', 'number', 'boolean', 'string[]', 'object'];

/** One props field of a node or edge type, as the spec tables declare it. */
export interface PropField {
  name: string;
  kind: PropKind;
  /** The spec's '?': absent means null in the output form (arrays still default to []). */
  nullable: boolean;
  /** Documented default; when absent the output-form default follows from kind/nullable (§2.6). */
  default?: unknown;
  /** A 0–1 field. */
  unit?: boolean;
  /** Closed vocabulary (only the statuses §2.6 closes, and Skill.status). */
  enum?: readonly string[];
  /** Must be present on create (FlowStep.order, PlanStep.order). */
  required?: boolean;
  /** The server maintains the value (Series cache fields, Skill status/review fields). */
  serverMaintained?: boolean;
  /**
   * Only with serverMaintained: the value changes only through a dedicated action (Skill), so
   * client values are validated and kept for the caller to guard (409). Without it, client
   * values for a server-maintained field are silently dropped (Series cache fields).
   */
  guarded?: boolean;
}

/** The value a field takes in the output form when it is absent (§2.6, §3.4). Fresh per call. */
export function fieldDefault(f: PropField): unknown {
  if (f.default !== undefined) {
    const d = f.default;
    if (Array.isArray(d)) return [...d];
    if (d !== null && typeof d === 'object') return { ...(d as object) };
    return d;
  }
  if (f.kind === 'string[]') return [];
  if (f.nullable) return null;
  switch (f.kind) {
    case 'string':
      return '';
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return {};
  }
}

/**
 * Compact declarative field syntax mirroring the spec tables, e.g.
 * `content string; certainty_degree number? 0-1; progress number 0-1 =0; status string? (open|done); source`.
 * Modifiers: `0-1` unit range, `=<json>` default, `(a|b)` closed vocabulary, `required`,
 * `server` (server-maintained, client values dropped), `guarded` (server-maintained, guarded by callers).
 * A bare `source` is the spec's origin field: string, nullable.
 */
export function parseFields(spec: string): PropField[] {
  const out: PropField[] = [];
  for (const raw of spec.split(';')) {
    const part = raw.trim();
    if (!part) continue;
    const tokens = part.split(/\s+/);
    const name = tokens[0];
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`bad field name in '${part}'`);
    if (tokens.length === 1) {
      if (name !== 'source') throw new Error(`field '${name}' has no kind`);
      out.push({ name, kind: 'string', nullable: true });
      continue;
    }
    let kindTok = tokens[1];
    const nullable = kindTok.endsWith('?');
    if (nullable) kindTok = kindTok.slice(0, -1);
    if (!(PROP_KINDS as readonly string[]).includes(kindTok)) throw new Error(`bad kind in '${part}'`);
    const field: PropField = { name, kind: kindTok as PropKind, nullable };
    for (const mod of tokens.slice(2)) {
      if (mod === '0-1') field.unit = true;
      else if (mod === 'required') field.required = true;
      else if (mod === 'server') field.serverMaintained = true;
      else if (mod === 'guarded') {
        field.serverMaintained = true;
        field.guarded = true;
      } else if (mod.startsWith('=')) field.default = parseDefault(mod.slice(1));
      else if (mod.startsWith('(') && mod.endsWith(')')) field.enum = Object.freeze(mod.slice(1, -1).split('|'));
      else throw new Error(`bad modifier '${mod}' in '${part}'`);
    }
    out.push(Object.freeze(field));
  }
  const names = new Set(out.map((f) => f.name));
  if (names.size !== out.length) throw new Error(`duplicate field in '${spec}'`);
  return out;
}

function parseDefault(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return v;
}
