import { createHash } from 'node:crypto';
import { findNodeTypeBySpelling } from '../catalogue/node-types';
import { canonicalCustomName } from '../catalogue/names';
import { DomainError, Errors } from '../errors';
import { canonicalJson } from '../mcp/canonical-json';
import { LAYERS } from '../records/node-record';
import { Classification, CLASSIFICATIONS, classificationRank, isClassification } from './classification';

/** REFERENCE §13.6. */
export type PolicyStatus = 'draft' | 'shadow' | 'published' | 'rejected';
export const POLICY_STATUSES: readonly PolicyStatus[] = ['draft', 'shadow', 'published', 'rejected'];
export type PolicyEffect = 'allow' | 'deny' | 'require_approval';
export const POLICY_EFFECTS: readonly PolicyEffect[] = ['allow', 'deny', 'require_approval'];

export interface PolicyMatch {
  principals?: string[];
  routes?: string[];
  tools?: string[];
  node_types?: string[];
  layers?: string[];
  min_classification?: Classification;
  spaces?: string[];
  projects?: string[];
}
export const MATCH_KEYS: readonly (keyof PolicyMatch)[] = ['principals', 'routes', 'tools', 'node_types', 'layers', 'min_classification', 'spaces', 'projects'];

/** A policy as stored (times in Unix seconds). */
export interface PolicyRecord {
  uid: string;
  name: string;
  description: string | null;
  status: PolicyStatus;
  effect: PolicyEffect;
  priority: number;
  match: PolicyMatch;
  version: number;
  status_reason: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
  status_changed_by: string;
  status_changed_at: number;
  mirrored_version: number | null;
}

export const POLICY_LIMITS = { entries: 100, live_per_org: 500, name: 200, description: 2000, status_reason: 500, priority: [-1000, 1000] } as const;

export interface PolicyError {
  path: string;
  message: string;
}

/**
 * What validating `match` needs to know beyond its syntax: whether a route template names a
 * route, the type of each uid it lists (null: no live node), and whether a custom node type exists.
 */
export interface MatchEnvironment {
  routeExists(method: string, template: string): boolean;
  nodeTypeOf(uid: string): string | null;
  customNodeTypeExists(name: string): boolean;
}

const PRINCIPAL_RE = /^(user|api_key|agent):([A-Za-z0-9._:-]{1,128}|\*)$/;
const ROLE_RE = /^role:(owner|admin|member|viewer)$/;
const ROUTE_RE = /^(\*|GET|POST|PUT|PATCH|DELETE) (\/[^\s#]*)(#([a-z_]{1,64}))?$/;

/** The uids `match` names, for the caller to look up before validating. */
export function matchUids(raw: unknown): string[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [];
  const m = raw as Record<string, unknown>;
  const out: string[] = [];
  for (const k of ['tools', 'spaces', 'projects']) if (Array.isArray(m[k])) for (const v of m[k] as unknown[]) if (typeof v === 'string') out.push(v);
  return out;
}

/**
 * Validates a policy's `match` (REFERENCE §13.6) and returns it normalised (type names in
 * their canonical spelling, duplicate entries dropped), or every error found.
 */
export function checkPolicyMatch(raw: unknown, env: MatchEnvironment): { match: PolicyMatch | null; errors: PolicyError[] } {
  const errors: PolicyError[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { match: null, errors: [{ path: 'match', message: 'match must be a JSON object' }] };
  const m = raw as Record<string, unknown>;
  const out: PolicyMatch = {};
  const keys = Object.keys(m).filter((k) => m[k] !== undefined && m[k] !== null);
  if (!keys.length) errors.push({ path: 'match', message: 'match needs at least one condition' });
  const list = (key: string, check: (v: string, path: string) => string | null): string[] | undefined => {
    const v = m[key];
    if (!Array.isArray(v) || !v.length) {
      errors.push({ path: `match.${key}`, message: `${key} must be a non-empty list of strings` });
      return undefined;
    }
    if (v.length > POLICY_LIMITS.entries) errors.push({ path: `match.${key}`, message: `${key} holds at most ${POLICY_LIMITS.entries} entries` });
    const seen = new Set<string>();
    v.forEach((entry, i) => {
      const path = `match.${key}[${i}]`;
      if (typeof entry !== 'string' || !entry) return errors.push({ path, message: 'must be a non-empty string' });
      const normal = check(entry, path);
      if (normal !== null) seen.add(normal);
    });
    return [...seen];
  };
  const fail = (path: string, message: string): null => {
    errors.push({ path, message });
    return null;
  };
  for (const key of keys) {
    switch (key) {
      case 'principals':
        out.principals = list(key, (v, p) => (PRINCIPAL_RE.test(v) || ROLE_RE.test(v) ? v : fail(p, `'${v}' is not user:<id>, api_key:<id>, agent:<id>, <kind>:* or role:<role>`)));
        break;
      case 'routes':
        out.routes = list(key, (v, p) => {
          const r = ROUTE_RE.exec(v);
          if (!r) return fail(p, `'${v}' is not "<METHOD> <template>" (optionally #<action> or a trailing /**)`);
          if (!env.routeExists(r[1], r[2])) return fail(p, `'${v}' matches no route`);
          return v;
        });
        break;
      case 'tools':
        out.tools = list(key, (v, p) => (env.nodeTypeOf(v) === 'Affordance' ? v : fail(p, `${v} is not a live Affordance`)));
        break;
      case 'spaces':
        out.spaces = list(key, (v, p) => (env.nodeTypeOf(v) === 'Space' ? v : fail(p, `${v} is not a live Space`)));
        break;
      case 'projects':
        out.projects = list(key, (v, p) => (env.nodeTypeOf(v) === 'Project' ? v : fail(p, `${v} is not a live Project`)));
        break;
      case 'node_types':
        out.node_types = list(key, (v, p) => {
          const def = findNodeTypeBySpelling(v);
          if (def) return def.name;
          const custom = canonicalCustomName(v);
          return env.customNodeTypeExists(custom) ? custom : fail(p, `unknown node type '${v}'`);
        });
        break;
      case 'layers':
        out.layers = list(key, (v, p) => {
          const l = v.trim().toLowerCase();
          return (LAYERS as readonly string[]).includes(l) ? l : fail(p, `unknown layer '${v}' (one of ${LAYERS.join(', ')})`);
        });
        break;
      case 'min_classification':
        if (isClassification(m[key])) out.min_classification = m[key] as Classification;
        else errors.push({ path: 'match.min_classification', message: `must be one of ${CLASSIFICATIONS.join(', ')}` });
        break;
      default:
        errors.push({ path: `match.${key}`, message: `unknown key (known: ${MATCH_KEYS.join(', ')})` });
    }
  }
  return { match: errors.length ? null : out, errors };
}

export function invalidPolicy(errors: PolicyError[]): DomainError {
  return new DomainError(422, 'invalid_policy', `invalid policy: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
}

// ---------- lifecycle ----------

/** A PATCH of a policy: the fields sent (already type-checked). */
export interface PolicyPatch {
  status?: PolicyStatus;
  status_reason?: string;
  name?: string;
  description?: string;
  effect?: PolicyEffect;
  match?: PolicyMatch;
  priority?: number;
  expected_version?: number;
}

export interface PolicyChange {
  policy: PolicyRecord;
  changed_fields: string[];
  status: { from: PolicyStatus; to: PolicyStatus; reason: string | null } | null;
}

const TRANSITIONS: Record<PolicyStatus, PolicyStatus[]> = {
  draft: ['shadow', 'published', 'rejected'],
  shadow: ['published', 'rejected'],
  published: ['shadow', 'rejected'],
  rejected: [],
};

/**
 * The lifecycle table of REFERENCE §13.6: field edits are judged against the starting status;
 * every change adds 1 to `version`. Null when nothing changes (a no-op status and equal fields).
 */
export function decidePolicyPatch(current: PolicyRecord, patch: PolicyPatch, by: string, now: number): PolicyChange | null {
  if (patch.expected_version !== undefined && patch.expected_version !== current.version) throw Errors.versionConflict(current.version, patch.expected_version);
  const from = current.status;
  const allowed = TRANSITIONS[from];
  const ruleEdits = (['effect', 'match', 'priority'] as const).filter((f) => patch[f] !== undefined && !sameValue(patch[f], current[f]));
  const textEdits = (['name', 'description'] as const).filter((f) => patch[f] !== undefined && patch[f] !== current[f]);
  const statusMove = patch.status !== undefined && patch.status !== from;
  if (from === 'rejected' && (statusMove || ruleEdits.length || textEdits.length || (patch.status !== undefined && patch.status !== 'rejected')))
    throw Errors.invalidTransition(`policy ${current.uid} is rejected; it cannot change`, from, allowed);
  if (statusMove && !allowed.includes(patch.status!)) throw Errors.invalidTransition(`a ${from} policy cannot become ${patch.status}`, from, allowed);
  if (from === 'published' && ruleEdits.length) throw Errors.immutableField(ruleEdits[0]);
  const changed: string[] = [...ruleEdits, ...textEdits];
  if (!statusMove && !changed.length) return null;
  const next: PolicyRecord = { ...current, version: current.version + 1, updated_at: now };
  for (const f of ruleEdits) (next as unknown as Record<string, unknown>)[f] = patch[f];
  for (const f of textEdits) (next as unknown as Record<string, unknown>)[f] = patch[f];
  let status: PolicyChange['status'] = null;
  if (statusMove) {
    next.status = patch.status!;
    next.status_reason = patch.status_reason ?? null;
    next.status_changed_by = by;
    next.status_changed_at = now;
    status = { from, to: patch.status!, reason: patch.status_reason ?? null };
    changed.push('status');
  }
  return { policy: next, changed_fields: changed, status };
}

function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

// ---------- evaluation ----------

/** Facts about the acting principal a policy may match. */
export interface RequestPrincipal {
  kind: 'user' | 'api_key' | 'agent' | 'system';
  id: string;
  role: string | null;
  /** the agent a key is bound to (a policy on agent:<id> matches it) */
  bound_agent_id: string | null;
}

/** A node a request writes, with what node conditions read. */
export interface WrittenNode {
  uid: string;
  node_type: string;
  layer: string;
  classification: Classification;
  spaces: readonly string[];
  projects: readonly string[];
}

export interface RequestFacts {
  principal: RequestPrincipal;
  method: string;
  /** the request path, without query string */
  path: string;
  action: string | null;
  tool_uid: string | null;
  written: readonly WrittenNode[];
}

/** A policy ready to evaluate: its match compiled once. */
export interface CompiledPolicy {
  policy: PolicyRecord;
  principals: ((p: RequestPrincipal) => boolean) | null;
  /** over the upper-case method and the path's segments */
  routes: ((method: string, parts: readonly string[], action: string | null) => boolean) | null;
  tools: ReadonlySet<string> | null;
  /** null when the policy has no node condition */
  node: ((n: WrittenNode) => boolean) | null;
  needsSpaces: boolean;
  needsProjects: boolean;
}

export function compilePolicy(policy: PolicyRecord): CompiledPolicy {
  const m = policy.match;
  const principals = m.principals ? m.principals.map(principalTest) : null;
  const routes = m.routes ? m.routes.map(routePartsTest) : null;
  const types = m.node_types ? new Set(m.node_types) : null;
  const layers = m.layers ? new Set(m.layers) : null;
  const minRank = m.min_classification ? classificationRank(m.min_classification) : null;
  const spaces = m.spaces ? new Set(m.spaces) : null;
  const projects = m.projects ? new Set(m.projects) : null;
  const hasNode = types || layers || minRank !== null || spaces || projects;
  return {
    policy,
    principals: principals ? (p) => principals.some((t) => t(p)) : null,
    routes: routes ? (method, parts, action) => routes.some((t) => t(method, parts, action)) : null,
    tools: m.tools ? new Set(m.tools) : null,
    node: hasNode
      ? (n) =>
          (!types || types.has(n.node_type)) &&
          (!layers || layers.has(n.layer)) &&
          (minRank === null || classificationRank(n.classification) >= minRank) &&
          (!spaces || n.spaces.some((s) => spaces.has(s))) &&
          (!projects || n.projects.some((s) => projects.has(s)))
      : null,
    needsSpaces: !!spaces,
    needsProjects: !!projects,
  };
}

function principalTest(entry: string): (p: RequestPrincipal) => boolean {
  if (entry.startsWith('role:')) {
    const role = entry.slice(5);
    return (p) => p.kind === 'user' && p.role === role;
  }
  const [kind, id] = [entry.slice(0, entry.indexOf(':')), entry.slice(entry.indexOf(':') + 1)];
  if (kind === 'agent') return (p) => (p.kind === 'agent' && (id === '*' || p.id === id)) || (p.bound_agent_id !== null && (id === '*' || p.bound_agent_id === id));
  return (p) => p.kind === kind && (id === '*' || p.id === id);
}

/** `"<METHOD> <template>"`: segments compare exactly, `{…}` matches one segment, a trailing `/**` the rest. */
export function routeTest(entry: string): (method: string, path: string, action: string | null) => boolean {
  const test = routePartsTest(entry);
  return (m, path, act) => test(m.toUpperCase(), pathParts(path), act);
}

/** A request path's segments, as route tests read them: split once per request, not per policy. */
function pathParts(path: string): string[] {
  return path.split('/').slice(1);
}

/** `routeTest` over an upper-case method and the path's segments. */
function routePartsTest(entry: string): (method: string, parts: readonly string[], action: string | null) => boolean {
  const r = ROUTE_RE.exec(entry);
  if (!r) return () => false;
  const method = r[1];
  const action = r[4] ?? null;
  let segs = r[2].split('/').slice(1);
  const rest = segs.at(-1) === '**';
  if (rest) segs = segs.slice(0, -1);
  const literal = segs.map((s) => !(s.startsWith('{') && s.endsWith('}')));
  return (m, parts, act) => {
    if (method !== '*' && method !== m) return false;
    if (action !== null && action !== act) return false;
    if (rest ? parts.length < segs.length : parts.length !== segs.length) return false;
    for (let i = 0; i < segs.length; i++) if (literal[i] && segs[i] !== parts[i]) return false;
    return true;
  };
}

/** Whether a policy template could ever match a registered route (`:param` placeholders). */
export function templateMatchesRoute(template: string, routeUrl: string): boolean {
  let segs = template.split('/').slice(1);
  const rest = segs.at(-1) === '**';
  if (rest) segs = segs.slice(0, -1);
  const parts = routeUrl.split('/').slice(1);
  if (rest ? parts.length < segs.length : parts.length !== segs.length) return false;
  for (let i = 0; i < segs.length; i++) {
    // a placeholder matches any segment and a route parameter any value: only two literals can differ
    const placeholder = segs[i].startsWith('{') && segs[i].endsWith('}');
    const param = parts[i].startsWith(':') || parts[i] === '*';
    if (!placeholder && !param && segs[i] !== parts[i]) return false;
  }
  return true;
}

export interface PolicyDecision {
  effect: PolicyEffect;
  enforced: boolean;
  /** the enforced policies that matched, the deciding one first */
  policy_uids: string[];
  deciding: PolicyRecord | null;
  shadow: { policy_uid: string; effect: PolicyEffect }[];
  /** whether any policy matched (a decision is then recorded) */
  matched: boolean;
}

/** Whether a compiled policy holds for a request (node conditions on one and the same written node). */
export function policyMatches(c: CompiledPolicy, f: RequestFacts, route: RouteFacts = routeFacts(f)): boolean {
  if (c.principals && !c.principals(f.principal)) return false;
  if (c.routes && !c.routes(route.method, route.parts, f.action)) return false;
  if (c.tools && (f.tool_uid === null || !c.tools.has(f.tool_uid))) return false;
  if (c.node && !f.written.some(c.node)) return false;
  return true;
}

/** What route conditions read of a request, derived once for all the policies. */
interface RouteFacts {
  method: string;
  parts: readonly string[];
}

function routeFacts(f: RequestFacts): RouteFacts {
  return { method: f.method.toUpperCase(), parts: pathParts(f.path) };
}

const EFFECT_RANK: Record<PolicyEffect, number> = { deny: 2, require_approval: 1, allow: 0 };

const EMPTY: readonly number[] = Object.freeze([]) as readonly number[];

/** The buckets of a route index under one first segment: exact templates by segment count, and `/**` ones. */
interface RouteBucket {
  exact: Map<number, number[]>;
  rest: number[];
}

/**
 * An organization's active policies compiled once per change and indexed by a condition each
 * one cannot match without — its tools, else its node types, else its routes (by first segment
 * and length), else its principals' kinds — so a request evaluates only the policies that can
 * match it, in their evaluation order. A policy with no indexable condition is always
 * evaluated. Sound because every condition of a policy must hold for it to match.
 */
export class PolicyIndex {
  /** whether a policy asks about the written nodes' Spaces, and the Projects any asks about */
  readonly needsSpaces: boolean;
  readonly projectUids: readonly string[];
  private readonly always: number[] = [];
  private readonly byTool = new Map<string, number[]>();
  private readonly byType = new Map<string, number[]>();
  private readonly byRoute = new Map<string, RouteBucket>();
  private readonly byPrincipal = new Map<string, number[]>();
  /** per-evaluation scratch, reused: which policies were picked (by stamp) and in which order */
  private readonly seen: Uint32Array;
  private stamp = 0;
  private readonly picked: number[] = [];

  constructor(readonly policies: readonly CompiledPolicy[]) {
    this.seen = new Uint32Array(policies.length);
    this.needsSpaces = policies.some((c) => c.needsSpaces);
    this.projectUids = [...new Set(policies.flatMap((c) => (c.needsProjects ? (c.policy.match.projects ?? []) : [])))];
    policies.forEach((c, i) => this.place(c.policy.match, i));
  }

  get size(): number {
    return this.policies.length;
  }

  private place(m: PolicyMatch, i: number): void {
    const put = (map: Map<string, number[]>, key: string) => {
      const l = map.get(key);
      if (!l) map.set(key, [i]);
      else if (l[l.length - 1] !== i) l.push(i);
    };
    if (m.tools) return m.tools.forEach((t) => put(this.byTool, t));
    if (m.node_types) return m.node_types.forEach((t) => put(this.byType, t));
    const routes = m.routes?.map(routeKey);
    if (routes && routes.every((r) => r !== null)) {
      for (const r of routes) {
        let b = this.byRoute.get(r!.first);
        if (!b) this.byRoute.set(r!.first, (b = { exact: new Map(), rest: [] }));
        if (r!.rest) {
          if (b.rest[b.rest.length - 1] !== i) b.rest.push(i);
        } else {
          const l = b.exact.get(r!.length);
          if (!l) b.exact.set(r!.length, [i]);
          else if (l[l.length - 1] !== i) l.push(i);
        }
      }
      return;
    }
    if (m.principals) {
      for (const p of m.principals) {
        const kind = p.startsWith('role:') ? 'user' : p.slice(0, p.indexOf(':'));
        put(this.byPrincipal, kind);
        // agent:<id> also matches a key bound to that agent
        if (kind === 'agent') put(this.byPrincipal, 'bound');
      }
      return;
    }
    this.always.push(i);
  }

  /** The policies that can match a request, in evaluation order (a list reused by the next call). */
  candidates(f: RequestFacts, parts: readonly string[]): readonly number[] {
    if (!this.policies.length) return EMPTY;
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const out = this.picked;
    out.length = 0;
    this.add(this.always);
    if (f.tool_uid !== null) this.add(this.byTool.get(f.tool_uid));
    if (this.byType.size) for (const n of f.written) this.add(this.byType.get(n.node_type));
    const b = parts.length ? this.byRoute.get(parts[0]) : undefined;
    if (b) {
      this.add(b.exact.get(parts.length));
      this.add(b.rest);
    }
    this.add(this.byPrincipal.get(f.principal.kind));
    if (f.principal.bound_agent_id !== null) this.add(this.byPrincipal.get('bound'));
    if (out.length > 1) out.sort((a, b) => a - b);
    return out;
  }

  private add(list: readonly number[] | undefined): void {
    if (!list) return;
    const seen = this.seen;
    const stamp = this.stamp;
    for (let k = 0; k < list.length; k++) {
      const i = list[k];
      if (seen[i] === stamp) continue;
      seen[i] = stamp;
      this.picked.push(i);
    }
  }
}

/** A route entry's first segment and length, or null when its first segment is a placeholder (or it is `/**`). */
function routeKey(entry: string): { first: string; length: number; rest: boolean } | null {
  const r = ROUTE_RE.exec(entry);
  if (!r) return { first: '\u0000never', length: -1, rest: false };
  let segs = r[2].split('/').slice(1);
  const rest = segs.at(-1) === '**';
  if (rest) segs = segs.slice(0, -1);
  if (!segs.length || (segs[0].startsWith('{') && segs[0].endsWith('}'))) return null;
  return { first: segs[0], length: segs.length, rest };
}

/**
 * Evaluation (REFERENCE §13.6): published policies decide in `enforce` mode (highest priority,
 * then deny > require_approval > allow); shadow ones — and in `shadow` mode every one — are
 * only logged. `off` evaluates nothing. Given a `PolicyIndex`, only the policies that can
 * match are tested; the outcome is the same as testing every one.
 */
export function evaluatePolicies(policies: readonly CompiledPolicy[] | PolicyIndex, f: RequestFacts, mode: 'off' | 'shadow' | 'enforce'): PolicyDecision {
  if (mode === 'off') return noDecision([]);
  let enforced: PolicyRecord[] | null = null;
  let shadow: { policy_uid: string; effect: PolicyEffect }[] | null = null;
  const route = routeFacts(f);
  const visit = (c: CompiledPolicy) => {
    const p = c.policy;
    if (p.status !== 'published' && p.status !== 'shadow') return;
    if (!policyMatches(c, f, route)) return;
    if (p.status === 'published' && mode === 'enforce') (enforced ??= []).push(p);
    else (shadow ??= []).push({ policy_uid: p.uid, effect: p.effect });
  };
  if (policies instanceof PolicyIndex) {
    const all = policies.policies;
    for (const i of policies.candidates(f, route.parts)) visit(all[i]);
  } else for (const c of policies) visit(c);
  return decide(enforced, shadow ?? []);
}

function noDecision(shadow: { policy_uid: string; effect: PolicyEffect }[]): PolicyDecision {
  return { effect: 'allow', enforced: false, policy_uids: [], deciding: null, shadow, matched: shadow.length > 0 };
}

function decide(enforced: PolicyRecord[] | null, shadow: { policy_uid: string; effect: PolicyEffect }[]): PolicyDecision {
  if (!enforced) return noDecision(shadow);
  enforced.sort((a, b) => b.priority - a.priority || EFFECT_RANK[b.effect] - EFFECT_RANK[a.effect] || (a.uid < b.uid ? -1 : 1));
  const deciding = enforced[0];
  return { effect: deciding.effect, enforced: true, policy_uids: enforced.map((p) => p.uid), deciding, shadow, matched: true };
}

/** The request fingerprint of an approval: hex SHA-256 of method, path, canonical body and principal id. */
export function requestFingerprint(method: string, path: string, body: unknown, principalId: string): string {
  const canonical = body === undefined || body === null ? '' : canonicalJson(body);
  return createHash('sha256').update([method.toUpperCase(), path, canonical, principalId].join('\n')).digest('hex');
}

export const PolicyErrors = {
  denied: (p: PolicyRecord) => new DomainError(403, 'policy_denied', `policy '${p.name}' denies this request`, { policy_uid: p.uid, policy_name: p.name }),
  approvalRequired: (policyUid: string | null, approvalUid: string) =>
    new DomainError(403, 'approval_required', `this request needs an approval (${approvalUid}); send it again with X-Approval-Uid once approved`, { policy_uid: policyUid, approval_uid: approvalUid }),
  /** an agent's tool call: the runtime asks for a tool approval (REFERENCE §15.10), so none is named here */
  toolApprovalRequired: (p: PolicyRecord) =>
    new DomainError(403, 'approval_required', `policy '${p.name}' requires a person's approval for this tool call`, { policy_uid: p.uid, policy_name: p.name, approval_uid: null }),
  approvalDenied: (approvalUid: string) => new DomainError(403, 'approval_denied', `approval ${approvalUid} was denied`, { approval_uid: approvalUid }),
  approvalInvalid: (approvalUid: string, reason: 'mismatch' | 'consumed' | 'expired') =>
    new DomainError(409, 'approval_invalid', `approval ${approvalUid} cannot be used: ${reason}`, { approval_uid: approvalUid, reason }),
};
