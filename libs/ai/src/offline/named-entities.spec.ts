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
    // the start of each first mention, as a UTF-16 index into the text
    for (const x of e) expect([x.text, x.start]).toEqual([x.text, text.indexOf(x.text)]);
  });

  it('trims quotes and punctuation around a mention and keeps offsets across sentences', () => {
    const text = 'We met.  Then "Ada Lovelace" visited London, and IBM.';
    const e = namedEntities(text);
    for (const x of e) expect([x.text, x.start]).toEqual([x.text, text.indexOf(x.text)]);
    expect(e.map((x) => x.text)).toContain('Ada Lovelace');
    expect(e.map((x) => x.text)).toContain('London');
  });
});
