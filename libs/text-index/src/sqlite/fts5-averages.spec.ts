import Database from 'better-sqlite3';
import { decodeFts5Averages, readVarint } from './fts5-averages';

describe('readVarint', () => {
  it('reads one-byte, multi-byte and nine-byte varints', () => {
    expect(readVarint(Uint8Array.of(0x22), 0)).toEqual([34, 1]);
    expect(readVarint(Uint8Array.of(0x81, 0x00), 0)).toEqual([128, 2]);
    expect(readVarint(Uint8Array.of(0x00, 0x83, 0xe8, 0x05), 1)).toEqual([3 * 128 * 128 + 0x68 * 128 + 5, 4]);
    // eight 7-bit groups, then a ninth byte of 8 bits
    expect(readVarint(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x80, 0x05), 0)).toEqual([128 * 256 + 5, 9]);
  });

  it('refuses a truncated varint', () => {
    expect(() => readVarint(Uint8Array.of(0x81), 0)).toThrow('truncated varint');
  });
});

describe('decodeFts5Averages', () => {
  it('counts an absent record as an empty table', () => {
    expect(decodeFts5Averages(undefined, 3)).toEqual({ rows: 0, tokens: [0, 0, 0] });
  });

  it("reads FTS5's own record: rows and tokens per column", () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, b);
             INSERT INTO t (rowid, a, b) VALUES (1, 'one two three', 'four'), (2, 'five', '');`);
    const block = db.prepare('SELECT block FROM t_data WHERE id = 1').pluck().get() as Buffer;
    expect(decodeFts5Averages(block, 2)).toEqual({ rows: 2, tokens: [4, 1] });
    // 200 rows: the count takes two bytes
    const many = db.prepare("INSERT INTO t (rowid, a, b) VALUES (?, 'x', '')");
    for (let i = 3; i <= 202; i++) many.run(i);
    expect(decodeFts5Averages(db.prepare('SELECT block FROM t_data WHERE id = 1').pluck().get() as Buffer, 2)).toEqual({ rows: 202, tokens: [204, 1] });
  });
});
