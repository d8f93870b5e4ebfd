import { DomainError } from '../errors';
import { OntologySchemaRecord, SchemaStatus } from './ontology-records';
import { decideActivate, decideArchive, decideCreateSchema, decideDeprecate, decideUpdateSchema, defaultSchema, schemaAfterTypeChange } from './schema-decider';

const at = (status: SchemaStatus): OntologySchemaRecord => ({ ...decideCreateSchema({ name: 's', description: null }, 'id-1', 'org', 'u', 100), status });

function outcome(fn: () => OntologySchemaRecord | null): string {
  try {
    const r = fn();
    return r === null ? 'noop' : `→ ${r.status}`;
  } catch (e) {
    return `${(e as DomainError).status} ${(e as DomainError).code}`;
  }
}

describe('schema lifecycle (REFERENCE §11 table)', () => {
  const rows: [SchemaStatus, string, string, string, string][] = [
    // from          activate                       deprecate                 archive        edit
    ['draft', '→ active', '409 invalid_transition', '→ archived', '→ draft'],
    ['active', 'noop', '→ deprecated', '→ archived', '→ active'],
    ['deprecated', '→ active', 'noop', '→ archived', '409 invalid_transition'],
    ['archived', '409 invalid_transition', '409 invalid_transition', 'noop', '409 invalid_transition'],
  ];
  it.each(rows)('%s: activate %s, deprecate %s, archive %s, edit %s', (from, activate, deprecate, archive, edit) => {
    expect(outcome(() => decideActivate(at(from), 1, 'u', 200))).toBe(activate);
    expect(outcome(() => decideDeprecate(at(from), 'u', 200))).toBe(deprecate);
    expect(outcome(() => decideArchive(at(from), 'u', 200))).toBe(archive);
    expect(outcome(() => decideUpdateSchema(at(from), { name: 'n' }, 'u', 200))).toBe(edit);
    expect(outcome(() => schemaAfterTypeChange(at(from), 'u', 200))).toBe(edit);
  });

  it('a draft needs an object type to be activated (422)', () => {
    expect(outcome(() => decideActivate(at('draft'), 0, 'u', 200))).toBe('422 schema_validation_failed');
  });

  it('an illegal move names the status and the moves it allows', () => {
    try {
      decideDeprecate(at('draft'), 'u', 1);
      throw new Error('no refusal');
    } catch (e) {
      expect((e as DomainError).context).toEqual({ from_status: 'draft', allowed: ['activate', 'archive', 'edit'] });
    }
  });

  it('type changes bump the version of an active schema only', () => {
    expect(schemaAfterTypeChange(at('draft'), 'u', 2).version).toBe(1);
    expect(schemaAfterTypeChange(at('active'), 'u', 2).version).toBe(2);
  });

  it('the default is the most recently activated active schema', () => {
    const s = (id: string, status: SchemaStatus, activated_at: number | null) => ({ id, status, activated_at });
    expect(defaultSchema([s('a', 'active', 10), s('b', 'active', 20), s('c', 'deprecated', 30)])?.id).toBe('b');
    expect(defaultSchema([s('a', 'draft', null)])).toBeNull();
  });
});
