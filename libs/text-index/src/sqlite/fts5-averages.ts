/**
 * FTS5's "averages" record (row 1 of `<table>_data`): the row count, then the token total of
 * each column, as SQLite varints. bm25() takes N and the average column lengths from it.
 */
export interface Fts5Averages {
  rows: number;
  /** tokens per column, in column order */
  tokens: number[];
}

/** Decodes the record; an absent one (a table never written) counts as empty. */
export function decodeFts5Averages(block: Uint8Array | null | undefined, columns: number): Fts5Averages {
  const out: Fts5Averages = { rows: 0, tokens: new Array<number>(columns).fill(0) };
  if (!block?.length) return out;
  let pos = 0;
  const next = (): number => {
    const [value, end] = readVarint(block, pos);
    pos = end;
    return value;
  };
  out.rows = next();
  for (let i = 0; i < columns && pos < block.length; i++) out.tokens[i] = next();
  return out;
}

/** A varint ran past the end of its buffer. */
export class TruncatedVarint extends Error {
  constructor() {
    super('truncated varint');
  }
}

/**
 * SQLite's varint: big-endian groups of 7 bits, the high bit saying another byte follows; a
 * ninth byte carries 8 bits. A cursor, so a run of them is read without a tuple per value.
 */
export class VarintCursor {
  constructor(
    readonly buf: Uint8Array,
    public pos: number,
  ) {}

  next(): number {
    let value = 0;
    for (let i = 0; i < 9; i++) {
      if (this.pos >= this.buf.length) throw new TruncatedVarint();
      const b = this.buf[this.pos++];
      if (i === 8) return value * 256 + b;
      value = value * 128 + (b & 0x7f);
      if (!(b & 0x80)) return value;
    }
    return value;
  }
}

/** One varint at `pos`: its value and the offset after it. */
export function readVarint(buf: Uint8Array, pos: number): [number, number] {
  const c = new VarintCursor(buf, pos);
  return [c.next(), c.pos];
}

/** FTS5's token counts per column from a `_docsize` record (undefined when it holds fewer columns). */
export function decodeDocSize(blob: Uint8Array, columns: number): number[] | undefined {
  const out: number[] = [];
  let pos = 0;
  for (let c = 0; c < columns && pos < blob.length; c++) {
    const [v, end] = readVarint(blob, pos);
    out.push(v);
    pos = end;
  }
  return out.length === columns ? out : undefined;
}
