import { tablesToVerify } from './projection-tables';

describe('tablesToVerify', () => {
  const existing = ['acct_users', 'edges', 'future_table', 'nodes', 'text_docs', 'text_fts'];

  it("compares only the named projection's tables", () => {
    expect(tablesToVerify(['text'], ['graph', 'text', 'accounts'], existing)).toEqual(['text_docs', 'text_fts']);
  });

  it('includes unclaimed tables when every projection is verified', () => {
    expect(tablesToVerify(['graph', 'text', 'accounts'], ['graph', 'text', 'accounts'], existing)).toEqual(existing);
  });
});
