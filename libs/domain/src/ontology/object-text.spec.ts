import { searchableText } from '../props/searchable-text';
import { embeddingTextOf } from '../retrieval/embedding-text';
import { domainObjectProps } from './object-decider';
import { ObjectTypeRecord } from './ontology-records';

const client = { id: 'type-1', schema_id: 'schema-1', name: 'Client' } as ObjectTypeRecord;
const props = {
  ...domainObjectProps(client, {
    canonical_name: 'Acme Corp',
    fields: { code: 'AC-1', tier: 'gold' },
    aliases: ['Acme', '', 'ACME Inc'],
    identity: { code: 'AC-1' },
    proposal_id: '4c1f3c52-8f0e-4a43-9a43-0f3c1b1e2d3a',
    source_uids: ['9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a'],
  }),
} as unknown as Record<string, unknown>;

describe('the searchable text of a domain object', () => {
  it('is its aliases: no ids, no review status, no second copy of its name', () => {
    expect(searchableText(null, props)).toBe('Acme\nACME Inc');
    expect(embeddingTextOf({ label: 'Acme Corp', summary: 'Acme Corp', node_type: 'Client', props: props as never })).toBe('Acme Corp\nAcme\nACME Inc');
  });

  it('leaves a custom node without the domain-object shape to the rule of custom types', () => {
    const { review_status: _status, ...notAnObject } = props;
    expect(searchableText(null, notAnObject)).toContain('schema-1');
  });
});
