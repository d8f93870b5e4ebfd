import { EDGE_TYPES } from './edge-types';
import { NODE_TYPES } from './node-types';
import { edgePropsSchemas, nodePropsSchemas, triggerAliasBodySchemas } from './openapi-schemas';

type Schema = { properties: Record<string, Record<string, unknown>>; [k: string]: unknown };

describe('props schemas for OpenAPI', () => {
  const nodes = nodePropsSchemas() as Record<string, Schema>;
  const edges = edgePropsSchemas() as Record<string, Schema>;

  it('describes every built-in node and edge type', () => {
    expect(Object.keys(nodes)).toHaveLength(65);
    expect(Object.keys(edges)).toHaveLength(98);
  });

  it('derives each schema from the catalogue: _type plus every field, nothing else allowed', () => {
    const pairs = [...NODE_TYPES.map((t) => [t, nodes[t.name]] as const), ...EDGE_TYPES.map((t) => [t, edges[t.name]] as const)];
    for (const [t, s] of pairs) {
      const aliases = Object.keys(s.properties).filter((k) => s.properties[k].deprecated === true);
      expect(Object.keys(s.properties)).toEqual(['_type', ...t.fields.map((f) => f.name), ...aliases]);
      expect(s.type).toBe('object');
      expect(s.additionalProperties).toBe(false);
      expect(s.properties._type).toEqual({ type: 'string', enum: [t.name], const: t.name });
    }
  });

  it('lists the §2.8 props aliases as deprecated alternatives, and the additions as fields', () => {
    expect(nodes.Question.properties.question).toMatchObject({ type: 'string', deprecated: true, description: expect.stringContaining('alias of text') });
    expect(nodes.Evidence.properties.content).toMatchObject({ deprecated: true, description: expect.stringContaining('alias of description') });
    expect(nodes.Organization.properties.canonical_name).toMatchObject({ type: 'string', deprecated: true, description: expect.stringContaining('alias of the node') });
    expect(nodes.Journal.properties.mood).toEqual({ type: 'string', nullable: true });
    expect(nodes.Goal.properties.question).toBeUndefined();
    const bodies = triggerAliasBodySchemas();
    expect(bodies['/agent/plan'].properties.task_uid).toMatchObject({ deprecated: true, description: 'update_status: alias of target_uid' });
    expect(bodies['/action/risk'].properties.target_uid).toMatchObject({ deprecated: true });
  });

  it('maps kinds, nullability, ranges and defaults', () => {
    const claim = nodes.Claim.properties;
    expect(claim.content).toEqual({ type: 'string' });
    expect(claim.certainty_degree).toEqual({ type: 'number', nullable: true, minimum: 0, maximum: 1 });
    expect(nodes.Goal.properties.progress).toEqual({ type: 'number', minimum: 0, maximum: 1, default: 0 });
    expect(nodes.Goal.properties.success_criteria).toEqual({ type: 'array', items: { type: 'string' } });
    expect(nodes.Entity.properties.identifiers).toEqual({ type: 'object', additionalProperties: true });
    expect(nodes.Person.properties.identifiers).toEqual({ type: 'object', additionalProperties: true, nullable: true });
    expect(nodes.Evidence.properties.is_negative).toEqual({ type: 'boolean', default: false });
  });

  it('lists closed vocabularies as enums', () => {
    expect(nodes.Task.properties.status.enum).toEqual(['pending', 'in_progress', 'done', 'failed', null]);
    expect(nodes.Skill.properties.status).toMatchObject({
      enum: ['candidate', 'reviewed', 'approved', 'rejected', 'deprecated'],
      default: 'candidate',
      readOnly: true,
    });
    expect(nodes.Theory.properties.status.enum).toBeUndefined();
  });

  it('marks required and server-maintained fields', () => {
    expect(nodes.FlowStep.required).toEqual(['order']);
    expect(nodes.Claim.required).toBeUndefined();
    expect(nodes.Series.properties.point_count.readOnly).toBe(true);
    expect(nodes.Series.properties.metric.readOnly).toBeUndefined();
  });

  it('gives field-less edge types a schema with only _type', () => {
    expect(Object.keys(edges.Follows.properties)).toEqual(['_type']);
    expect(edges.PossibleDuplicate.properties.status).toEqual({ type: 'string', nullable: true, default: 'pending' });
  });
});
