import { getNodeType } from './node-types';
import { flattenedProps, PROPS_ALIASES, resolvePropsAliases, TRIGGER_ALIASES } from './client-aliases';
import { compileSchema } from './schema';

describe('client aliases (REFERENCE §2.8)', () => {
  it('every props alias names existing types and, unless registered as a node alias, a field the type has but the alias is not', () => {
    for (const r of PROPS_ALIASES) {
      for (const t of r.types) {
        const def = getNodeType(t)!;
        expect(def).toBeDefined();
        const names = def.fields.map((f) => f.name);
        expect(names).not.toContain(r.alias);
        if (r.field !== null) expect(names).toContain(r.field);
      }
    }
  });

  it('takes an alias as its field; the catalogue name wins when both are sent; the earlier alias wins among aliases', () => {
    expect(resolvePropsAliases('Question', { question: 'Why?' }, { takeNodeAliases: false }).props).toEqual({ text: 'Why?' });
    expect(resolvePropsAliases('Question', { question: 'alias', text: 'field' }, { takeNodeAliases: false }).props).toEqual({ text: 'field' });
    expect(resolvePropsAliases('Evidence', { content: 'c', statement: 's' }, { takeNodeAliases: false }).props).toEqual({ description: 's' });
    expect(resolvePropsAliases('Person', { name: 'Ada' }, { takeNodeAliases: false }).props).toEqual({ full_name: 'Ada' });
    expect(resolvePropsAliases('Goal', { question: 'x' }, { takeNodeAliases: false }).props).toEqual({ question: 'x' });
  });

  it('canonical_name of Organization, Nation, Event and Place is taken out as a node alias only when the caller can register it', () => {
    expect(resolvePropsAliases('Organization', { canonical_name: ' Acme Corp ', org_type: 'company' }, { takeNodeAliases: true })).toEqual({
      props: { org_type: 'company' },
      nodeAliases: ['Acme Corp'],
    });
    expect(resolvePropsAliases('Place', { canonical_name: 'Paris' }, { takeNodeAliases: false }).props).toEqual({ canonical_name: 'Paris' });
    expect(() => resolvePropsAliases('Nation', { canonical_name: 7 }, { takeNodeAliases: true })).toThrow(expect.objectContaining({ code: 'invalid_props' }));
  });

  it('flattens only props fields and aliases of the type outside the request shape', () => {
    const def = getNodeType('Question')!;
    const body = { action: 'question', label: 'L', question: 'Why?', scope: 'all', colour: 'red', tests_uid: 'x' };
    expect(flattenedProps(body, compileSchema(def).byName, 'Question', new Set(['action', 'label', 'tests_uid']))).toEqual({ question: 'Why?', scope: 'all' });
  });

  it('every trigger alias row renames to a different field', () => {
    for (const r of TRIGGER_ALIASES) expect(r.alias).not.toBe(r.field);
  });
});
