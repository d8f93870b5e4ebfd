import { serverStatusRows } from './server-status-rows';

const KNOWN = ['graph', 'text', 'vectors'];
const cp = (_id: string, version: number, position: number, last_error: string | null = null) => ({ _id, version, position, last_error });

describe('serverStatusRows', () => {
  it("lists every projection the worker runs, with its lag, even one that never ran", () => {
    const rows = serverStatusRows(KNOWN, [cp('graph', 1, 90), cp('text', 1, 100)], 100);
    expect(rows.map((r) => [r.name, r.checkpoint, r.lag, r.note])).toEqual([
      ['graph', 90, 10, null],
      ['text', 100, 0, null],
      ['vectors', 0, 100, 'not built yet: the projection worker builds it'],
    ]);
  });

  it('says when a rebuild was asked for, shows the last error, and flags checkpoints the code no longer has', () => {
    const rows = serverStatusRows(KNOWN, [cp('vector', 1, 50), cp('vectors', -1, 0), cp('graph', 1, 10, 'boom'), cp('text', 1, 10)], 10);
    expect(rows.map((r) => r.name)).toEqual(['graph', 'text', 'vectors', 'vector']);
    expect(rows[0]).toMatchObject({ last_error: 'boom', stored_version: 1 });
    expect(rows[2]).toMatchObject({ stored_version: -1, note: 'rebuild requested: the worker rebuilds it' });
    expect(rows[3].note).toMatch(/no such projection in this code/);
  });
});
