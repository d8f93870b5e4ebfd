import { createHash } from 'node:crypto';
import { Errors } from '../errors';
import { canonicalJson } from './canonical-json';
import { ConnectionAuthInput } from './connection-auth';
import { McpApprovalMode, McpAuthView, McpDrift, McpToolDef, McpToolFields } from './mcp-events';
import { visibleText } from './tool-screening';

export const APPROVAL_MODES: readonly McpApprovalMode[] = ['always', 'never', 'per_tool', 'on_drift'];
export const NAME_MAX = 100;
export const SLUG_MAX = 20;
/** REFERENCE §15.5: more tools than this fail the sync (`too_many_tools`) */
export const MAX_TOOLS = 500;
/** characters of a tool result given to a model */
export const MAX_RESULT_CHARS = 50_000;

/** `name` lower-cased, runs outside [a-z0-9] → `_`, ≤ 20 characters, `_2`… on a clash. */
export function slugFor(name: string, taken: ReadonlySet<string>): string {
  let base = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, SLUG_MAX);
  if (base === '' || base === '_') base = 'mcp';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = base.slice(0, SLUG_MAX - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

/** 12 hex of the SHA-256 of a credential's secret material. */
export function credentialFingerprint(material: string): string {
  return createHash('sha256').update(material).digest('hex').slice(0, 12);
}

/** `"…"` + the last 4 characters of a bearer token of at least 16 characters, else null. */
export function tokenHint(token: string): string | null {
  return token.length >= 16 ? '…' + token.slice(-4) : null;
}

/** What events and responses say about static credentials: never the values. */
export function staticAuthView(auth: ConnectionAuthInput): McpAuthView {
  switch (auth.type) {
    case 'bearer':
      return { type: 'bearer', configured: true, hint: tokenHint(auth.token), header_names: [], credential_fingerprint: credentialFingerprint(auth.token), oauth: null };
    case 'headers': {
      const names = Object.keys(auth.headers);
      const material = names.map((n) => `${n.toLowerCase()}:${auth.headers[n]}`).join('\n');
      return { type: 'headers', configured: true, hint: null, header_names: names, credential_fingerprint: credentialFingerprint(material), oauth: null };
    }
    case 'none':
      return { type: 'none', configured: true, hint: null, header_names: [], credential_fingerprint: null, oauth: null };
    default:
      throw new Error('OAuth credentials are viewed through their tokens');
  }
}

/**
 * The name a model calls a tool by: `mcp__<slug>__<name>`, characters outside
 * [A-Za-z0-9_-] → `_`; over 64 characters, the first 55 + `_` + 8 hex of the full name's SHA-256.
 */
export function modelToolName(slug: string, tool: string): string {
  const full = `mcp__${slug}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (full.length <= 64) return full;
  return `${full.slice(0, 55)}_${createHash('sha256').update(full).digest('hex').slice(0, 8)}`;
}

/** The approval mode's verdict on a call of this tool now (before policies, §15.10). */
export function modeRequiresApproval(
  mode: McpApprovalMode,
  toolApprovals: Record<string, 'always' | 'never'>,
  tool: { name: string; drift_state: 'clean' | 'unacknowledged' },
): boolean {
  switch (mode) {
    case 'always':
      return true;
    case 'never':
      return false;
    case 'per_tool':
      return toolApprovals[tool.name] !== 'never';
    case 'on_drift':
      return tool.drift_state === 'unacknowledged';
  }
}

/** `tool_approvals`: `{tool: "always"|"never"}`. */
export function readToolApprovals(raw: unknown, field = 'tool_approvals'): Record<string, 'always' | 'never'> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw Errors.invalidField(field, `${field} must be an object of tool names to "always" or "never"`);
  const out: Record<string, 'always' | 'never'> = {};
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > MAX_TOOLS) throw Errors.invalidField(field, `${field} takes at most ${MAX_TOOLS} tools`);
  for (const [name, v] of entries) {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name)) throw Errors.invalidField(field, `'${name.slice(0, 130)}' is not a tool name (1-128 of [A-Za-z0-9_.-])`);
    if (v !== 'always' && v !== 'never') throw Errors.invalidField(field, `${field}.${name} must be "always" or "never"`);
    out[name] = v;
  }
  return out;
}

/** The Affordance that mirrors a tool in the action layer (§15.8). */
export function affordanceFor(connectionName: string, tool: McpToolDef): { label: string; props: Record<string, unknown> } {
  const ann = tool.annotations ?? {};
  const risk = ann.destructiveHint === true ? 'high' : ann.readOnlyHint === true ? 'low' : 'unknown';
  const properties = tool.input_schema && typeof tool.input_schema.properties === 'object' && tool.input_schema.properties !== null ? Object.keys(tool.input_schema.properties) : [];
  return {
    label: `${connectionName} · ${tool.name}`,
    props: {
      action_name: tool.name,
      description: visibleText(tool.description ?? tool.title ?? ''),
      affordance_type: 'mcp_tool',
      parameters: properties,
      risk_level: risk,
      reversible: false,
    },
  };
}

/** A tool as the registry keeps it between syncs. */
export interface KnownTool {
  def: McpToolDef;
  status: 'active' | 'removed';
}

export interface SyncDiff {
  added: { tool: McpToolDef; restored: boolean; drift: McpDrift | null }[];
  changed: { tool: McpToolDef; drift: McpDrift }[];
  removed: { name: string; drift: McpDrift }[];
  unchanged: McpToolDef[];
}

const FIELD_KEYS: [keyof McpToolFields, string][] = [
  ['title', 'title'],
  ['description', 'description'],
  ['input_schema', 'input_schema'],
  ['output_schema', 'output_schema'],
  ['annotations', 'annotations'],
];

function fieldsOf(t: McpToolDef): McpToolFields {
  return { title: t.title, description: t.description, input_schema: t.input_schema, output_schema: t.output_schema, annotations: t.annotations };
}

/**
 * What a sync changes in the registry (§15.8): new names are added (or restored), a differing
 * hash is a change, a missing name is a removal. The baseline (no earlier successful sync)
 * records no drift. Pure: the drift ids come from `newId`.
 */
export function diffTools(known: readonly KnownTool[], listed: readonly McpToolDef[], baseline: boolean, newId: () => string): SyncDiff {
  const byName = new Map(known.map((k) => [k.def.name, k]));
  const seen = new Set<string>();
  const out: SyncDiff = { added: [], changed: [], removed: [], unchanged: [] };
  for (const tool of listed) {
    seen.add(tool.name);
    const k = byName.get(tool.name);
    if (!k || k.status === 'removed') {
      const drift: McpDrift | null = baseline ? null : { id: newId(), kind: 'added', changed_fields: [], previous_hash: null, hash: tool.hash, previous: null, current: fieldsOf(tool) };
      out.added.push({ tool, restored: !!k, drift });
    } else if (k.def.hash !== tool.hash) {
      const before = fieldsOf(k.def);
      const after = fieldsOf(tool);
      const changed_fields = FIELD_KEYS.filter(([key]) => canonicalJson(before[key]) !== canonicalJson(after[key])).map(([, name]) => name);
      out.changed.push({ tool, drift: { id: newId(), kind: 'changed', changed_fields, previous_hash: k.def.hash, hash: tool.hash, previous: before, current: after } });
    } else out.unchanged.push(tool);
  }
  for (const k of known) {
    if (k.status === 'active' && !seen.has(k.def.name))
      out.removed.push({ name: k.def.name, drift: { id: newId(), kind: 'removed', changed_fields: [], previous_hash: k.def.hash, hash: null, previous: fieldsOf(k.def), current: null } });
  }
  return out;
}

/** REFERENCE §15.3: a connection in `error` is synced again automatically this often (seconds) */
export const AUTO_SYNC_AFTER_S = 300;

/**
 * Whether a connection is due for its automatic sync (REFERENCE §15.3): in `error` for a reason
 * other than `auth_failed` (credentials only a person can fix), its last failure at least five
 * minutes ago. Every failed attempt records a new failure, so the attempts stay five minutes apart.
 */
export function dueForAutoSync(c: { status: string; last_error: { code: string; at: number } | null }, now: number): boolean {
  return c.status === 'error' && c.last_error !== null && c.last_error.code !== 'auth_failed' && now - c.last_error.at >= AUTO_SYNC_AFTER_S;
}
