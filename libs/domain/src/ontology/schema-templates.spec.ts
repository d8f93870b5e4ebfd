import { decideCreateSchema } from './schema-decider';
import { SCHEMA_TEMPLATES, CATEGORY_TYPES } from './schema-templates';
import { decideAddObjectType, decideAddRelationType } from './type-decider';
import { ObjectTypeRecord, RelationTypeRecord } from './ontology-records';
import { objectTypeCandidate, relationTypeCandidate } from './semantic-guidance';

describe('propose-schema templates', () => {
  it.each(Object.keys(SCHEMA_TEMPLATES))('%s passes every type validation rule', (hint) => {
    const t = SCHEMA_TEMPLATES[hint as keyof typeof SCHEMA_TEMPLATES];
    const schema = decideCreateSchema({ name: t.name, description: null }, 's', 'o', 'u', 1);
    const objects: ObjectTypeRecord[] = [];
    const relations: RelationTypeRecord[] = [];
    for (const [i, o] of [...t.objects, ...Object.values(CATEGORY_TYPES)].entries()) objects.push(decideAddObjectType(schema, { objects, relations }, o, `o${i}`, 'u', 1).object_type);
    for (const [i, r] of t.relations.entries()) relations.push(decideAddRelationType(schema, { objects, relations }, r, `r${i}`, 'u', 1).relation_type);
    expect(objects.length).toBeGreaterThanOrEqual(3);
  });
});

describe('semantic guidance', () => {
  it('matches by name and fields, deterministically', () => {
    expect(objectTypeCandidate({ name: 'ClientOrganization', display_name: null, fields_json: [{ name: 'org_type', type: 'string' }] })).toMatchObject({ builtin_type: 'Organization', status: 'candidate', kind: 'node_type' });
    expect(objectTypeCandidate({ name: 'Contact', display_name: 'Person of contact', fields_json: [{ name: 'full_name', type: 'string' }] }).builtin_type).toBe('Person');
    expect(relationTypeCandidate({ name: 'depends_upon', display_name: null })).toMatchObject({ builtin_type: 'DependsOn', kind: 'edge_type' });
  });
});
