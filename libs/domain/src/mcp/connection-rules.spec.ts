import { createHash } from 'node:crypto';
import { McpToolDef } from './mcp-events';
import { redactSecrets } from './connection-auth';
import { affordanceFor, credentialFingerprint, diffTools, dueForAutoSync, modeRequiresApproval, modelToolName, readToolApprovals, slugFor, staticAuthView, tokenHint } from './connection-rules';

const tool = (name: string, description: string, extra: Partial<McpToolDef> = {}): McpToolDef => ({
  name, title: null, description, input_schema: { type: 'object', properties: { q: {} } }, output_schema: null, annotations: null, hash: `sha256:${name}:${description}`, warnings: [], ...extra,
});

describe('connection rules', () => {
  it('slugs: lower case, runs of others to _, at most 20, suffixed on a clash', () => {
    expect(slugFor('GitHub Tools!', new Set())).toBe('github_tools_');
    expect(slugFor('A very long connection name indeed', new Set())).toBe('a_very_long_connecti');
    expect(slugFor('A very long connection name indeed', new Set(['a_very_long_connecti']))).toBe('a_very_long_connec_2');
    expect(slugFor('x', new Set(['x', 'x_2']))).toBe('x_3');
  });

  it('model names: mcp__slug__name, sanitized, hashed past 64 characters', () => {
    expect(modelToolName('gh', 'repo.search')).toBe('mcp__gh__repo_search');
    const long = 'n'.repeat(80);
    const full = `mcp__gh__${long}`;
    expect(modelToolName('gh', long)).toBe(`${full.slice(0, 55)}_${createHash('sha256').update(full).digest('hex').slice(0, 8)}`);
    expect(modelToolName('gh', long)).toHaveLength(64);
  });

  it('credential views never hold the secret', () => {
    expect(tokenHint('short')).toBeNull();
    expect(tokenHint('abcdefghijklmnop')).toBe('…mnop');
    const v = staticAuthView({ type: 'headers', headers: { 'X-Key': 'secret-value' } });
    expect(v).toMatchObject({ type: 'headers', header_names: ['X-Key'], hint: null });
    expect(JSON.stringify(v)).not.toContain('secret-value');
    expect(credentialFingerprint('abc')).toMatch(/^[0-9a-f]{12}$/);
  });

  it('approval verdicts of the four modes', () => {
    const clean = { name: 't', drift_state: 'clean' as const };
    const drifted = { name: 't', drift_state: 'unacknowledged' as const };
    expect(modeRequiresApproval('always', {}, clean)).toBe(true);
    expect(modeRequiresApproval('never', {}, drifted)).toBe(false);
    expect(modeRequiresApproval('per_tool', {}, clean)).toBe(true);
    expect(modeRequiresApproval('per_tool', { t: 'never' }, clean)).toBe(false);
    expect(modeRequiresApproval('on_drift', {}, clean)).toBe(false);
    expect(modeRequiresApproval('on_drift', {}, drifted)).toBe(true);
    expect(() => readToolApprovals({ t: 'sometimes' })).toThrow();
  });

  it('Affordance mirrors: label, parameters, risk from the hints', () => {
    const a = affordanceFor('GH', tool('del', 'Deletes\u200b.', { annotations: { destructiveHint: true } }));
    expect(a).toEqual({ label: 'GH · del', props: { action_name: 'del', description: 'Deletes.', affordance_type: 'mcp_tool', parameters: ['q'], risk_level: 'high', reversible: false } });
    expect(affordanceFor('GH', tool('r', 'x', { annotations: { readOnlyHint: true } })).props.risk_level).toBe('low');
    expect(affordanceFor('GH', tool('u', 'x')).props.risk_level).toBe('unknown');
  });

  it('diffs a listing against the registry: baseline without drift, then added, changed, removed, restored', () => {
    let n = 0;
    const id = () => `d${++n}`;
    const base = diffTools([], [tool('a', '1'), tool('b', '1')], true, id);
    expect(base.added.map((x) => [x.tool.name, x.drift])).toEqual([['a', null], ['b', null]]);
    const known = [{ def: tool('a', '1'), status: 'active' as const }, { def: tool('b', '1'), status: 'active' as const }, { def: tool('c', '1'), status: 'removed' as const }];
    const d = diffTools(known, [tool('a', '2'), tool('c', '1'), tool('e', '1')], false, id);
    expect(d.added.map((x) => [x.tool.name, x.restored, x.drift!.kind])).toEqual([['c', true, 'added'], ['e', false, 'added']]);
    expect(d.changed.map((x) => [x.tool.name, x.drift.changed_fields, x.drift.previous_hash])).toEqual([['a', ['description'], 'sha256:a:1']]);
    expect(d.removed.map((x) => [x.name, x.drift.kind, x.drift.current])).toEqual([['b', 'removed', null]]);
    expect(diffTools(known.slice(0, 1), [tool('a', '1')], false, id)).toMatchObject({ added: [], changed: [], removed: [] });
  });
});

describe('dueForAutoSync', () => {
  const failed = (code: string, at: number) => ({ status: 'error', last_error: { code, message: 'x', at } });
  it('syncs a connection in error five minutes after its last failure, never one whose credentials failed', () => {
    expect(dueForAutoSync(failed('unreachable', 1000), 1299)).toBe(false);
    expect(dueForAutoSync(failed('unreachable', 1000), 1300)).toBe(true);
    expect(dueForAutoSync(failed('timeout', 1000), 5000)).toBe(true);
    expect(dueForAutoSync(failed('auth_failed', 1000), 5000)).toBe(false);
    expect(dueForAutoSync({ status: 'active', last_error: null }, 5000)).toBe(false);
    expect(dueForAutoSync({ status: 'pending_auth', last_error: { code: 'access_denied', at: 0 } }, 5000)).toBe(false);
  });
});

describe('redactSecrets', () => {
  it('removes a credential a server echoed, in every form it may come back in', () => {
    const token = 'tok_"planted"/9c2e41d7';
    const echoed = `HTTP 500: debug ${JSON.stringify({ authorization: `Bearer ${token}` })} and ?t=${encodeURIComponent(token)} and bare ${token}`;
    const out = redactSecrets(echoed, [`Bearer ${token}`]);
    expect(out).not.toContain('planted');
    expect(out).toBe('HTTP 500: debug {"authorization":"[redacted]"} and ?t=[redacted] and bare [redacted]');
  });

  it('leaves the text alone when no secret is in it, and ignores values too short to search for', () => {
    expect(redactSecrets('HTTP 500: down', ['abc', null, undefined, 'secret-value'])).toBe('HTTP 500: down');
  });
});
