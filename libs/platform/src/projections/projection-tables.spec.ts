import { tablesToVerify } from './projection-tables';

describe('tablesToVerify', () => {
  const perOrg = ['text_docs_0123456789abcdef', 'text_fts_0123456789abcdef', 'text_docs_fedcba9876543210_2', 'text_fts_fedcba9876543210_2'];
  const existing = ['acct_users', 'edges', 'future_table', 'nodes', ...perOrg, 'text_orgs'];

  it("compares only the named projection's tables, the per-organization ones included", () => {
    expect(tablesToVerify(['text'], ['graph', 'text', 'accounts'], existing)).toEqual([...perOrg, 'text_orgs']);
    expect(tablesToVerify(['graph'], ['graph', 'text', 'accounts'], existing)).toEqual(['edges', 'nodes']);
  });

  it('includes unclaimed tables when every projection is verified', () => {
    expect(tablesToVerify(['graph', 'text', 'accounts'], ['graph', 'text', 'accounts'], existing)).toEqual(existing);
  });

  it('does not claim look-alike names for the text projection (the version-1 shared tables included)', () => {
    const odd = ['text_docs', 'text_fts', 'text_docs_xyz', 'text_fts_0123456789abcdef_data'];
    expect(tablesToVerify(['text'], ['graph', 'text', 'accounts'], odd)).toEqual([]);
    expect(tablesToVerify(['graph', 'text', 'accounts'], ['graph', 'text', 'accounts'], odd)).toEqual(odd);
  });
});
