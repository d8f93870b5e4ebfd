import { DomainError } from '../errors';
import { decideCreateSchema } from './schema-decider';
import { decideAddObjectType, decideAddRelationType, decideUpdateObjectType, SchemaTypes } from './type-decider';
import { ObjectTypeInput } from './type-decider';

const schema = decideCreateSchema({ name: 's', description: null }, 'sch', 'org', 'u', 1);
const none: SchemaTypes = { objects: [], relations: [] };
const client = decideAddObjectType(schema, none, { name: 'Client', fields: [{ name: 'code', type: 'string' }, { name: 'tier', type: 'enum', enum: ['a', 'b'] }], identity_fields: ['code'] }, 't1', 'u', 2).object_type;
const withClient: SchemaTypes = { objects: [client], relations: [] };

function problem(fn: () => unknown): { status: number; code: string; paths: string[] } {
  try {
    fn();
  } catch (e) {
    const d = e as DomainError;
    return { status: d.status, code: d.code, paths: ((d.context.errors as { path: string }[]) ?? []).map((p) => p.path) };
  }
  throw new Error('expected a refusal');
}

describe('object and relation types', () => {
  it('stores fields as fields_json with defaults', () => {
    expect(client).toMatchObject({ name: 'Client', fields_json: [{ name: 'code', type: 'string' }, { name: 'tier', type: 'enum', enum: ['a', 'b'] }], identity_fields: ['code'], default_confidence: 0.8, review_policy: 'always', status: 'active', version: 1 });
  });

  const invalid: [string, ObjectTypeInput, string[]][] = [
    ['a built-in node type name', { name: 'open_question' }, ['name']],
    ['a bad name', { name: '1x' }, ['name']],
    ['an unknown field type', { name: 'X', fields: [{ name: 'a', type: 'text' }] }, ['fields[0].type']],
    ['an enum without values', { name: 'X', fields: [{ name: 'a', type: 'enum' }] }, ['fields[0].enum']],
    ['a reference to no type', { name: 'X', fields: [{ name: 'a', type: 'reference', reference_object_type: 'Nope' }] }, ['fields[0].reference_object_type']],
    ['required fields not defined', { name: 'X', required_fields: ['a'] }, ['required_fields[0]']],
    ['identity fields not defined', { name: 'X', identity_fields: ['a'] }, ['identity_fields[0]']],
    ['a backing of the wrong shape', { name: 'X', backing: { kind: 'sql', sources: [{ table: 't' }] } }, ['backing.sources[0].connection_ref', 'backing.sources[0].key', 'backing.sources[0].field_map', 'backing.primary_key']],
  ];
  it.each(invalid)('refuses %s with 422 schema_validation_failed', (_, input, paths) => {
    expect(problem(() => decideAddObjectType(schema, withClient, input, 't2', 'u', 3))).toEqual({ status: 422, code: 'schema_validation_failed', paths });
  });

  it('a name clash within the schema is 409 duplicate, whatever the spelling', () => {
    expect(problem(() => decideAddObjectType(schema, withClient, { name: 'client' }, 't2', 'u', 3))).toMatchObject({ status: 409, code: 'duplicate' });
  });

  it('accepts a well-formed backing and a reference to a type of the schema', () => {
    const t = decideAddObjectType(schema, withClient, {
      name: 'Contract',
      fields: [{ name: 'client', type: 'reference', reference_object_type: 'client' }],
      backing: { kind: 'sql', sources: [{ connection_ref: 'crm', table: 'contracts', key: 'id', field_map: { client: 'client_id' } }], primary_key: 'id' },
    }, 't2', 'u', 3).object_type;
    expect(t.fields_json[0].reference_object_type).toBe('Client');
    expect(t.backing).toMatchObject({ kind: 'sql', primary_key: 'id' });
  });

  it('an update bumps the type version; the name never changes', () => {
    const active = { ...schema, status: 'active' as const };
    const u = decideUpdateObjectType(active, withClient, client, { description: 'who we serve' }, 'u', 4);
    expect([u.object_type.version, u.schema.version]).toEqual([2, 2]);
    expect(problem(() => decideUpdateObjectType(active, withClient, client, { name: 'Customer' }, 'u', 4))).toMatchObject({ status: 422, code: 'immutable_field' });
  });

  it('relation endpoints must be object types of the schema', () => {
    expect(problem(() => decideAddRelationType(schema, withClient, { name: 'owns', source_type: 'Client', target_type: 'Nope' }, 'r', 'u', 5))).toEqual({ status: 422, code: 'schema_validation_failed', paths: ['target_type'] });
    const r = decideAddRelationType(schema, withClient, { name: 'partner_of', source_type: 'client', target_type: 'Client', symmetric: true, cardinality: 'one_to_one' }, 'r', 'u', 5).relation_type;
    expect(r).toMatchObject({ name: 'PartnerOf', source_type: 'Client', target_type: 'Client', symmetric: true, cardinality: 'one_to_one' });
    expect(problem(() => decideAddRelationType(schema, withClient, { name: 'supports', source_type: 'Client', target_type: 'Client' }, 'r', 'u', 5)).paths).toEqual(['name']);
  });
});
