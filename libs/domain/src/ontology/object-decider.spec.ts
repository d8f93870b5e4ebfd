import { DomainError } from '../errors';
import { decideCreateSchema } from './schema-decider';
import { decideAddObjectType } from './type-decider';
import { assertIdentityUnchanged, objectIdentity, validateObjectFields } from './object-decider';

const schema = decideCreateSchema({ name: 's', description: null }, 'sch', 'org', 'u', 1);
const client = decideAddObjectType(schema, { objects: [], relations: [] }, {
  name: 'Client',
  fields: [
    { name: 'code', type: 'string', required: true },
    { name: 'tier', type: 'enum', enum: ['gold', 'silver'], default: 'silver' },
    { name: 'employees', type: 'integer' },
    { name: 'revenue', type: 'number' },
    { name: 'active', type: 'boolean' },
    { name: 'since', type: 'date' },
    { name: 'seen_at', type: 'datetime' },
    { name: 'parent', type: 'reference', reference_object_type: 'Client' },
    { name: 'tags', type: 'array', array_item_type: 'string' },
    { name: 'address', type: 'object' },
    { name: 'extra', type: 'json' },
  ],
  identity_fields: ['code'],
}, 't', 'u', 1).object_type;

function paths(fn: () => unknown): string[] {
  try {
    fn();
    return [];
  } catch (e) {
    return ((e as DomainError).context.errors as { path: string }[]).map((p) => p.path);
  }
}

describe('domain object fields against their type', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['a complete object', { code: 'A', employees: 3, revenue: 1.5, active: true, since: '2020-03', seen_at: '2030-01-01T10:00:00Z', parent: 'uid-1', tags: ['x'], address: { city: 'Oslo' }, extra: [1] }, []],
    ['a missing required field', {}, ['fields.code']],
    ['a wrong string', { code: 1 }, ['fields.code']],
    ['a non-integer', { code: 'A', employees: 1.5 }, ['fields.employees']],
    ['a non-number', { code: 'A', revenue: '1' }, ['fields.revenue']],
    ['a non-boolean', { code: 'A', active: 'yes' }, ['fields.active']],
    ['a bad date', { code: 'A', since: '2020-13-01' }, ['fields.since']],
    ['a bad datetime', { code: 'A', seen_at: 'yesterday' }, ['fields.seen_at']],
    ['a value outside the enum', { code: 'A', tier: 'bronze' }, ['fields.tier']],
    ['a malformed reference', { code: 'A', parent: 'not a uid' }, ['fields.parent']],
    ['a bad array item', { code: 'A', tags: ['x', 2] }, ['fields.tags[1]']],
    ['a non-object', { code: 'A', address: 'Oslo' }, ['fields.address']],
    ['an unknown field', { code: 'A', colour: 'red' }, ['fields.colour']],
  ];
  it.each(cases)('%s', (_, fields, expected) => {
    expect(paths(() => validateObjectFields(client, fields, null))).toEqual(expected);
  });

  it('fills defaults on create, returns references to check, merges patches', () => {
    const v = validateObjectFields(client, { code: 'A', parent: 'uid-1' }, null);
    expect(v.fields).toEqual({ code: 'A', parent: 'uid-1', tier: 'silver' });
    expect(v.references).toEqual([{ path: 'fields.parent', uid: 'uid-1', object_type: 'Client' }]);
    expect(validateObjectFields(client, { tier: 'gold', parent: null }, v.fields).fields).toEqual({ code: 'A', tier: 'gold' });
    expect(paths(() => validateObjectFields(client, { code: null }, v.fields))).toEqual(['fields.code']);
  });

  it('identity: from the identity fields, or the normalised name; never changed', () => {
    expect(objectIdentity(client, 'Acme', { code: 'A' }, undefined)).toEqual({ identity: { code: 'A' }, key: 'id:[["code","A"]]' });
    expect(paths(() => objectIdentity(client, 'Acme', { code: 'A' }, { code: 'B' }))).toEqual(['identity.code']);
    const noIdentity = { ...client, identity_fields: [] };
    expect(objectIdentity(noIdentity, '  ACME, Inc. ', {}, undefined).key).toBe(objectIdentity(noIdentity, 'acme inc', {}, undefined).key);
    expect(() => assertIdentityUnchanged(client, { code: 'A' }, { code: 'A', tier: 'gold' })).not.toThrow();
    expect(() => assertIdentityUnchanged(client, { code: 'A' }, { code: 'B' })).toThrow(expect.objectContaining({ code: 'immutable_field' }));
  });
});
