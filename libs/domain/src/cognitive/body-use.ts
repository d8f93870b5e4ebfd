import { triggerAliasesOf } from '../catalogue';
import { Body } from '../validation';
import { Decision } from './decision';

/** A key of a cognitive request that Strata did not use (REFERENCE §2.8: nothing is dropped silently). */
export interface BodyWarning {
  field: string;
  reason: string;
}

/** Fields every cognitive call accepts whatever its action reads (§4.0). */
const ALWAYS_ACCEPTED: ReadonlySet<string> = new Set(['action', 'agent_id']);

export interface BodyUse {
  /** the body to hand to the action: reading a key through it marks the key used */
  readonly body: Body;
  /** a warning for each top-level key the action never read */
  warnings(path: string, action: string, single: boolean): BodyWarning[];
}

/**
 * Watches which top-level keys an action reads. Every action reads its fields by name
 * (`readString(body, 'x')`, `present(body, 'x')`, `body.x`), so a key it never read is one
 * it neither used nor listed: the call answers with a warning for it instead of dropping it.
 */
export function trackBodyUse(raw: Body): BodyUse {
  const read = new Set<string>();
  const mark = (k: string | symbol) => {
    if (typeof k === 'string') read.add(k);
  };
  const body = new Proxy(raw, {
    get(t, k, r) {
      mark(k);
      return Reflect.get(t, k, r);
    },
    has(t, k) {
      mark(k);
      return Reflect.has(t, k);
    },
    // no getOwnPropertyDescriptor trap: Object.keys calls it for every key without using any
  });
  return {
    body,
    warnings(path, action, single) {
      const aliases = single ? [] : triggerAliasesOf(path, action);
      const out: BodyWarning[] = [];
      for (const field of Object.keys(raw)) {
        if (read.has(field) || ALWAYS_ACCEPTED.has(field)) continue;
        const alias = aliases.find((a) => a.alias === field);
        const reason = alias
          ? `alias of ${alias.field}, which was also sent and was used instead`
          : `not a field of /${path}${single ? '' : ` action ${action}`}; ignored`;
        out.push({ field, reason });
      }
      return out;
    },
  };
}

/**
 * Adds `warnings` to a decision's response: into the body when it is a JSON object; a bare
 * array (NodeList) keeps its shape and carries them in `Decision.warnings` for a header.
 */
export function withWarnings(decision: Decision, warnings: readonly BodyWarning[]): Decision {
  if (!warnings.length) return decision;
  const body = decision.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    // an action may already report keys of nested items (`claim.x`); the top-level ones come first
    const own = (body as { warnings?: BodyWarning[] }).warnings ?? [];
    return { ...decision, body: { ...(body as Record<string, unknown>), warnings: [...warnings, ...own] } };
  }
  return { ...decision, warnings: [...warnings] };
}

/** Warnings as a header value: JSON with every non-ASCII character escaped, as a header must be. */
export function warningsHeaderValue(warnings: readonly BodyWarning[]): string {
  return JSON.stringify(warnings).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
