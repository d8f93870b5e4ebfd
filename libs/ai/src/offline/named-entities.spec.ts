import { namedEntities } from './named-entities';

describe('offline named entities', () => {
  it('finds people, organizations and places, once each, in order', () => {
    const text = 'Acme Corp signed a contract with Globex Corporation in Paris. Ada Lovelace met John Smith. Ada Lovelace left.';
    const e = namedEntities(text);
    expect(e.map((x) => [x.text, x.category])).toEqual([
      ['Acme Corp', 'organization'],
      ['Globex Corporation', 'organization'],
      ['Paris', 'place'],
      ['Ada Lovelace', 'person'],
      ['John Smith', 'person'],
    ]);
    expect(namedEntities(text)).toEqual(e);
  });
});
