import type { Database, Statement } from 'better-sqlite3';
import { TruncatedVarint, VarintCursor } from './fts5-averages';
import { grownArray } from './grown-array';

/** A token's rows as FTS5's index holds them: ids ascending, each row's weighted frequency. */
export interface Doclist {
  ids: Uint32Array;
  /** Σ column weight × occurrences (small integers: exact in a float); −1 marks a deleted row while segments are merged */
  wf: Float32Array;
  n: number;
}

/** The structure record's row in `%_data`, and the prefix of the main index's keys. */
const STRUCTURE_ROWID = 10;
const MAIN_KEY = Buffer.from('0');
/** `%_data` ids: segment id above 5 flag bits and a 31-bit page number (fts5_index.c `fts5_dri`). */
const SEGMENT_SHIFT = 2 ** 37;
/** pages read at once past the first, doubling up to this while a doclist goes on */
const MAX_BATCH = 64;

interface Segment {
  id: number;
  first: number;
  last: number;
}

class Unreadable extends Error {}

/**
 * One token's doclist bytes and decoded entries while it is read: shared by every table's
 * reader (a read runs to its end synchronously), grown to the longest list read and kept.
 */
const scratch = {
  buf: new Uint8Array(1 << 16),
  /** offsets in `buf` where a rowid is absolute (the doclist's start, a page's restart) */
  abs: [] as number[],
  ids: new Uint32Array(1024) as Uint32Array,
  wf: new Float32Array(1024) as Float32Array,
};

/**
 * Reads a token's doclist straight from an FTS5 table's own pages (`%_data`, located through
 * `%_idx`), as FTS5's segment iterators do, instead of one fts5vocab row per occurrence: the
 * vocab view costs ~0.25 µs an occurrence in row machinery, the pages decode in a few
 * nanoseconds a byte. The layout is FTS5's documented one (fts5_index.c): a structure record
 * listing segments by level, leaf pages of prefix-compressed terms each followed by its doclist
 * (rowid deltas restarting at an absolute rowid on each page, a poslist per row whose size
 * carries a delete flag, column markers 0x01), newer segments overriding older ones row by row.
 *
 * Anything outside that layout (a contentless_delete table's tombstones, a page that does not
 * parse, rowids past 32 bits) answers null, and the caller reads the vocab view instead; the
 * caller also checks the row count against FTS5's own document frequency.
 */
export class Fts5Doclists {
  private readonly structure: Statement<[], Buffer | undefined>;
  private readonly idx: Statement<[number, Buffer], number | undefined>;
  private readonly pages: Statement<[number, number], Buffer>;

  constructor(
    db: Database,
    fts: string,
    /** bm25() weight of each column, by column number */
    private readonly weights: readonly number[],
  ) {
    this.structure = db.prepare<[], Buffer | undefined>(`SELECT block FROM ${fts}_data WHERE id = ${STRUCTURE_ROWID}`).pluck();
    this.idx = db.prepare<[number, Buffer], number | undefined>(`SELECT pgno FROM ${fts}_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1`).pluck();
    this.pages = db.prepare<[number, number], Buffer>(`SELECT block FROM ${fts}_data WHERE id >= ? AND id <= ? ORDER BY id`).pluck();
  }

  /**
   * The token's rows with ids ≤ `upTo`, and how many rows hold it in all; null where the index
   * cannot be read here.
   */
  read(token: string, upTo: number): { list: Doclist; rows: number } | null {
    try {
      const segments = this.segments();
      if (!segments) return null;
      const key = Buffer.concat([MAIN_KEY, Buffer.from(token, 'utf8')]);
      // each segment's entries side by side in the scratch arrays, newest segment first
      const parts: number[] = [];
      let n = 0;
      for (const seg of segments) {
        const end = this.segment(seg, key, n);
        if (end > n) parts.push(n, end);
        n = end;
      }
      return this.collect(parts, upTo);
    } catch (e) {
      if (e instanceof Unreadable || e instanceof TruncatedVarint) return null;
      throw e;
    }
  }

  /**
   * One list from the segments' entries: newer entries override older ones for a row, deleted
   * rows go, rows past `upTo` are counted but left out. Segments of rows written at different
   * times hold disjoint id ranges (the common case) and are simply laid end to end.
   */
  private collect(parts: number[], upTo: number): { list: Doclist; rows: number } {
    const { ids, wf } = scratch;
    const order = Array.from({ length: parts.length / 2 }, (_, i) => 2 * i).sort((a, b) => ids[parts[a]] - ids[parts[b]]);
    let disjoint = true;
    for (let i = 1; i < order.length && disjoint; i++) disjoint = ids[parts[order[i]]] > ids[parts[order[i - 1] + 1] - 1];
    let e: Doclist;
    if (disjoint) {
      let total = 0;
      for (const p of order) total += parts[p + 1] - parts[p];
      const out: Doclist = { ids: new Uint32Array(total), wf: new Float32Array(total), n: 0 };
      for (const p of order) {
        out.ids.set(ids.subarray(parts[p], parts[p + 1]), out.n);
        out.wf.set(wf.subarray(parts[p], parts[p + 1]), out.n);
        out.n += parts[p + 1] - parts[p];
      }
      e = out;
    } else {
      e = { ids: ids.slice(parts[0], parts[1]), wf: wf.slice(parts[0], parts[1]), n: parts[1] - parts[0] };
      for (let p = 2; p < parts.length; p += 2) e = overlay(e, { ids: ids.subarray(parts[p], parts[p + 1]), wf: wf.subarray(parts[p], parts[p + 1]), n: parts[p + 1] - parts[p] });
    }
    // deleted rows and rows past `upTo` out, in place
    let n = 0;
    let rows = 0;
    for (let i = 0; i < e.n; i++) {
      const f = e.wf[i];
      if (f < 0) continue;
      rows++;
      const id = e.ids[i];
      if (id > upTo) continue;
      e.ids[n] = id;
      e.wf[n++] = f;
    }
    return { list: { ids: n === e.ids.length ? e.ids : e.ids.slice(0, n), wf: n === e.wf.length ? e.wf : e.wf.slice(0, n), n }, rows };
  }

  /** Segments newest first (level 0 first, each level's newest first): the order rows override in. */
  private segments(): Segment[] | null {
    const block = this.structure.get();
    if (!block) return [];
    const r = new VarintCursor(block, 4);
    // a V2 record (contentless_delete tables) has tombstone pages this does not read
    if (block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1) return null;
    const levels = r.next();
    r.next(); // segments
    r.next(); // write counter
    const out: Segment[] = [];
    for (let l = 0; l < levels; l++) {
      r.next(); // segments in an ongoing merge
      const n = r.next();
      const level: Segment[] = [];
      for (let i = 0; i < n; i++) level.push({ id: r.next(), first: r.next(), last: r.next() });
      if (r.pos > block.length) throw new Unreadable();
      out.push(...level.reverse());
    }
    return out;
  }

  /** Decodes the token's entries in one segment into the scratch arrays from `at`; answers where they end. */
  private segment(seg: Segment, key: Buffer, at: number): number {
    const found = this.idx.get(seg.id, key);
    let pg = found === undefined ? 1 : Math.floor(found / 2);
    if (pg < seg.first) pg = seg.first;
    if (pg > seg.last) return at;
    const base = seg.id * SEGMENT_SHIFT;
    let batch = this.pages.all(base + pg, base + pg);
    let page = batch[0];
    if (!page) throw new Unreadable();
    const start = findTerm(page, key);
    if (start === null) return at;
    let len = 0;
    scratch.abs.length = 0;
    scratch.abs.push(0);
    len = this.append(page, start.from, start.to, len);
    // the doclist goes on over the next pages while it ends its page
    let next = 1;
    let size = 1;
    while (start.to === leafSize(page) && pg < seg.last) {
      if (next >= batch.length) {
        size = Math.min(MAX_BATCH, size * 2);
        batch = this.pages.all(base + pg + 1, base + Math.min(seg.last, pg + size));
        next = 0;
        if (!batch.length) throw new Unreadable();
      }
      page = batch[next++];
      pg++;
      const rowidAt = (page[0] << 8) | page[1];
      const end = firstTermAt(page);
      if (rowidAt) {
        if (rowidAt < 4 || rowidAt > end) throw new Unreadable();
        // the doclist's first rowid, where its term ended the page before, is absolute already
        if (scratch.abs[scratch.abs.length - 1] !== len + rowidAt - 4) scratch.abs.push(len + rowidAt - 4);
      }
      len = this.append(page, 4, end, len);
      start.to = end;
    }
    return this.decode(len, at);
  }

  private append(page: Uint8Array, from: number, to: number, len: number): number {
    if (to < from || to > page.length) throw new Unreadable();
    if (len + (to - from) > scratch.buf.length) {
      const b = new Uint8Array(Math.max(2 * scratch.buf.length, len + (to - from)));
      b.set(scratch.buf.subarray(0, len));
      scratch.buf = b;
    }
    scratch.buf.set(page.subarray(from, to), len);
    return len + (to - from);
  }

  /** The doclist gathered in `buf[0, len)` into the scratch arrays from `n`: (rowid, weighted frequency or −1 deleted) per entry. */
  private decode(len: number, n: number): number {
    const buf = scratch.buf;
    const abs = scratch.abs;
    const weights = this.weights;
    // an entry takes two bytes at least
    if (n + (len >> 1) > scratch.ids.length) {
      const size = Math.max(2 * scratch.ids.length, n + (len >> 1));
      scratch.ids = grownArray(scratch.ids, size);
      scratch.wf = grownArray(scratch.wf, size);
    }
    const ids = scratch.ids;
    const wf = scratch.wf;
    let a = 0;
    let rowid = 0;
    let pos = 0;
    while (pos < len) {
      // rowid: absolute at the doclist's start and where a page restarts it, else a delta (the
      // varints of this loop are read inline: it is the one loop run per byte of the doclist)
      let v = 0;
      let b: number;
      const at = pos;
      do {
        b = buf[pos++];
        v = v * 128 + (b & 0x7f);
      } while (b & 0x80 && pos < len);
      if (a < abs.length && abs[a] === at) {
        rowid = v;
        a++;
      } else rowid += v;
      if (rowid > 0xffffffff || (a < abs.length && abs[a] < pos)) throw new Unreadable();
      // poslist: size × 2 + delete flag, then positions (each ≥ 2) and column markers (0x01)
      let sz = 0;
      do {
        b = buf[pos++];
        sz = sz * 128 + (b & 0x7f);
      } while (b & 0x80);
      const end = pos + Math.floor(sz / 2);
      if (end > len) throw new Unreadable();
      let f = 0;
      let w = weights[0];
      while (pos < end) {
        b = buf[pos];
        if (b === 1) {
          let col = 0;
          pos++;
          do {
            b = buf[pos++];
            col = col * 128 + (b & 0x7f);
          } while (b & 0x80);
          w = weights[col];
          if (w === undefined) throw new Unreadable();
        } else {
          f += w;
          while (buf[pos++] & 0x80);
        }
      }
      if (pos !== end) throw new Unreadable();
      ids[n] = rowid;
      // an empty poslist is a delete marker
      wf[n++] = f > 0 ? f : -1;
    }
    if (a < abs.length) throw new Unreadable();
    return n;
  }
}

/** A leaf's size without its footer (the byte offset the footer starts at). */
const leafSize = (page: Uint8Array) => (page[2] << 8) | page[3];

/** Where a leaf's first term starts: its footer's first offset, or the end of its data when it has none. */
function firstTermAt(page: Uint8Array): number {
  const sz = leafSize(page);
  if (sz < 4 || sz > page.length) throw new Unreadable();
  if (sz === page.length) return sz;
  return new VarintCursor(page, sz).next();
}

/**
 * The token's doclist on a leaf: from after its term to the next term (or the leaf's end).
 * Null when the leaf's terms pass it. Terms are compared as FTS5's own leaf seek does, without
 * building them: `match` bytes of the key equal the current term's, which sorts below the key.
 */
function findTerm(page: Uint8Array, key: Uint8Array): { from: number; to: number } | null {
  const sz = leafSize(page);
  if (sz < 4 || sz > page.length) throw new Unreadable();
  const footer = new VarintCursor(page, sz);
  const r = new VarintCursor(page, 0);
  let off = 0;
  let match = 0;
  let first = true;
  while (footer.pos < page.length) {
    off += footer.next();
    r.pos = off;
    const keep = first ? 0 : r.next();
    const add = r.next();
    first = false;
    if (r.pos + add > sz) throw new Unreadable();
    // this term leaves the previous one before the byte where the key did: it sorts above the key
    if (keep < match) return null;
    // it leaves the previous one after that byte: it still sorts below the key
    if (keep > match) continue;
    let i = 0;
    while (i < add && match < key.length && page[r.pos + i] === key[match]) {
      i++;
      match++;
    }
    if (i === add) {
      if (match !== key.length) continue; // a prefix of the key
      const to = footer.pos < page.length ? off + new VarintCursor(page, footer.pos).next() : sz;
      return { from: r.pos + add, to };
    }
    if (match === key.length || page[r.pos + i] > key[match]) return null;
  }
  return null;
}

/** `newer`'s entries override `older`'s for the same row. */
function overlay(newer: Doclist, older: Doclist): Doclist {
  const ids = new Uint32Array(newer.n + older.n);
  const wf = new Float32Array(newer.n + older.n);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < newer.n || j < older.n) {
    if (j >= older.n || (i < newer.n && newer.ids[i] <= older.ids[j])) {
      if (j < older.n && newer.ids[i] === older.ids[j]) j++;
      ids[n] = newer.ids[i];
      wf[n++] = newer.wf[i++];
    } else {
      ids[n] = older.ids[j];
      wf[n++] = older.wf[j++];
    }
  }
  return { ids, wf, n };
}
