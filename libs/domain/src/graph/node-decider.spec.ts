import { NodeRecord } from '../records';
import { decideCreateNode, decideRestoreNode, decideTombstoneNode, decideUpdateNode } from './node-decider';
import { domainErrorOf as fails } from '../testing/domain-error-of';

const ctx = { now: 1000, agent_id: 'agent-7', principal_id: 'user-1' };


describe('decideCreateNode', () => {
  it('builds version 1 with defaults, output-form props and a derived summary', () => {
    const n = decideCreateNode({ label: ' Boiling ', node_type: 'claim', props: { content: 'Water boils' } }, 'u1', ctx);
    expect(n).toMatchObject({
      uid: 'u1',
      label: 'Boiling',
      summary: 'Water boils',
      node_type: 'Claim',
      layer: 'epistemic',
      confidence: 1,
      salience: 0.5,
      privacy_level: 'private',
      agent_id: 'agent-7',
      created_at: 1000,
      updated_at: 1000,
      tombstone_at: null,
      version: 1,
    });
    expect(n.props._type).toBe('Claim');
    expect(n.props.claim_type).toBeNull();
  });

  it('takes the explicit summary over the derived one and accepts the privacy alias', () => {
    const n = decideCreateNode({ label: 'x', node_type: 'Goal', summary: 'mine', privacy: 'shared' }, 'u', ctx);
    expect([n.summary, n.privacy_level]).toEqual(['mine', 'shared']);
  });

  it.each([
    [{}, 'missing_field', 'label'],
    [{ label: '' , node_type: 'Goal'}, 'missing_field', 'label'],
    [{ label: 'x'.repeat(1001), node_type: 'Goal' }, 'invalid_field', 'label'],
    [{ label: 'x', node_type: 'Goal', summary: 'y'.repeat(10_001) }, 'invalid_field', 'summary'],
    [{ label: 'x', node_type: 'Goal', confidence: 2 }, 'invalid_field', 'confidence'],
    [{ label: 'x', node_type: 'Goal', agent_id: 'a'.repeat(129) }, 'invalid_field', 'agent_id'],
  ])('refuses %j with %s on %s', (body, code, field) => {
    const e = fails(() => decideCreateNode(body, 'u', ctx));
    expect([e.code, e.context.field]).toEqual([code, field]);
  });

  it('fixes the type and merges action defaults under the caller props for cognitive calls', () => {
    const n = decideCreateNode({ label: 'Ship', props: { priority: 'high' } }, 'u', ctx, {
      forcedType: 'Goal',
      propsDefaults: { description: 'Ship', status: 'active', priority: 'low' },
    });
    expect(n.props).toMatchObject({ _type: 'Goal', description: 'Ship', status: 'active', priority: 'high' });
    const e = fails(() => decideCreateNode({ label: 'x', props: { _type: 'Task' } }, 'u', ctx, { forcedType: 'Goal' }));
    expect(e.code).toBe('invalid_props');
  });

  it('names nested fields with the prefix', () => {
    const e = fails(() => decideCreateNode({}, 'u', ctx, { forcedType: 'Claim', prefix: 'claim' }));
    expect(e.context.field).toBe('claim.label');
  });

  it('always starts a Skill as candidate, except on import', () => {
    expect(decideCreateNode({ label: 's', node_type: 'Skill', props: { status: 'approved' } }, 'u', ctx).props.status).toBe('candidate');
    expect(decideCreateNode({ label: 's', node_type: 'Skill', props: { status: 'approved' } }, 'u', ctx, { keepSkillStatus: true }).props.status).toBe('approved');
  });
});

describe('decideUpdateNode', () => {
  const base = (): NodeRecord => decideCreateNode({ label: 'G', node_type: 'Goal', props: { description: 'd', success_criteria: ['a'] } }, 'g', ctx);

  it('shallow-merges props, resets nulls to defaults and always writes a version', () => {
    const next = decideUpdateNode(base(), { props: { progress: 0.3, success_criteria: null } }, { ...ctx, now: 2000 });
    expect(next).toMatchObject({ version: 2, updated_at: 2000, created_at: 1000 });
    expect(next.props).toMatchObject({ description: 'd', progress: 0.3, success_criteria: [] });
    const touched = decideUpdateNode(next, {}, { ...ctx, now: 3000 });
    expect(touched.version).toBe(3);
  });

  it('checks expected_version, the type tag and liveness', () => {
    expect(fails(() => decideUpdateNode(base(), { expected_version: 5 }, ctx))).toMatchObject({ code: 'version_conflict', context: { current_version: 1 } });
    expect(fails(() => decideUpdateNode(base(), { props: { _type: 'Task' } }, ctx)).code).toBe('invalid_props');
    expect(fails(() => decideUpdateNode(base(), { props: { nope: 1 } }, ctx)).code).toBe('unknown_props_fields');
    const dead = decideTombstoneNode(base(), 'r', ctx)!;
    expect(fails(() => decideUpdateNode(dead, { label: 'x' }, ctx)).code).toBe('tombstoned');
  });

  it('refuses Skill lifecycle changes outside the skill route', () => {
    const skill = decideCreateNode({ label: 's', node_type: 'Skill' }, 's', ctx);
    expect(fails(() => decideUpdateNode(skill, { props: { status: 'approved' } }, ctx)).code).toBe('invalid_transition');
    expect(decideUpdateNode(skill, { props: { description: 'fine' } }, ctx).props.description).toBe('fine');
  });
});

describe('tombstone and restore', () => {
  it('are versioned once and idempotent after that', () => {
    const n = decideCreateNode({ label: 'x', node_type: 'Task' }, 't', ctx);
    const dead = decideTombstoneNode(n, 'gone', { ...ctx, now: 5 })!;
    expect(dead).toMatchObject({ version: 2, tombstone_at: 5, tombstone_reason: 'gone', tombstone_by: 'user-1' });
    expect(decideTombstoneNode(dead, 'again', ctx)).toBeNull();
    const back = decideRestoreNode(dead, { ...ctx, now: 6 })!;
    expect(back).toMatchObject({ version: 3, tombstone_at: null, tombstone_reason: null, tombstone_by: null });
    expect(decideRestoreNode(back, ctx)).toBeNull();
    expect(decideTombstoneNode(n, null, ctx, 'system')!.tombstone_by).toBe('system');
  });
});
