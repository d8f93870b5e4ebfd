/** One row of a canonical dump: column values in table order. */
export type Row = readonly unknown[];

export type RowDifference =
  | { kind: 'missing'; key: Row; expected: Row }
  | { kind: 'unexpected'; key: Row; actual: Row }
  | { kind: 'changed'; key: Row; columns: { column: string; expected: unknown; actual: unknown }[] };

export interface TableDiff {
  table: string;
  /** rows read on each side */
  expectedRows: number;
  actualRows: number;
  /** total number of differing keys */
  differing: number;
  /** the first differences, in key order */
  first: RowDifference[];
}

/** SQLite's own ordering of values: NULL < numbers < text < blobs; text by bytes (BINARY). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 1) return Number(a) - Number(b);
  if (ra === 2) return Buffer.compare(Buffer.from(a as string, 'utf8'), Buffer.from(b as string, 'utf8'));
  return Buffer.compare(a as Buffer, b as Buffer);
}

function rank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number' || typeof v === 'bigint') return 1;
  if (typeof v === 'string') return 2;
  return 3;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
}

function compareKeys(a: Row, b: Row): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * Merge-compares two dumps of one table, both sorted by `keyColumns` (the primary key, or
 * every column when there is none), and reports the first `limit` differences: rows only in
 * the expected dump (missing), only in the actual one (unexpected), or with other values.
 * Streams both sides, so tables of any size compare in constant memory.
 */
export function diffSortedRows(
  table: string,
  columns: readonly string[],
  keyColumns: readonly number[],
  expected: Iterable<Row>,
  actual: Iterable<Row>,
  limit = 10,
): TableDiff {
  const out: TableDiff = { table, expectedRows: 0, actualRows: 0, differing: 0, first: [] };
  const note = (d: RowDifference) => {
    out.differing++;
    if (out.first.length < limit) out.first.push(d);
  };
  const keyOf = (r: Row) => keyColumns.map((i) => r[i]);
  const ei = expected[Symbol.iterator]();
  const ai = actual[Symbol.iterator]();
  let e = ei.next();
  let a = ai.next();
  while (!e.done || !a.done) {
    if (a.done || (!e.done && compareKeys(keyOf(e.value), keyOf(a.value)) < 0)) {
      out.expectedRows++;
      note({ kind: 'missing', key: keyOf(e.value), expected: e.value });
      e = ei.next();
      continue;
    }
    if (e.done || compareKeys(keyOf(e.value), keyOf(a.value)) > 0) {
      out.actualRows++;
      note({ kind: 'unexpected', key: keyOf(a.value), actual: a.value });
      a = ai.next();
      continue;
    }
    out.expectedRows++;
    out.actualRows++;
    const changed: { column: string; expected: unknown; actual: unknown }[] = [];
    for (let i = 0; i < columns.length; i++)
      if (!sameValue(e.value[i], a.value[i])) changed.push({ column: columns[i], expected: e.value[i], actual: a.value[i] });
    if (changed.length) note({ kind: 'changed', key: keyOf(e.value), columns: changed });
    e = ei.next();
    a = ai.next();
  }
  return out;
}

const MAX_SHOWN = 80;

/** A value as one short line: long text and blobs are cut. */
export function showValue(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = 'NULL';
  else if (Buffer.isBuffer(v)) s = `<blob ${v.length} bytes>`;
  else if (typeof v === 'string') s = JSON.stringify(v);
  else s = String(v);
  return s.length > MAX_SHOWN ? s.slice(0, MAX_SHOWN - 1) + '…' : s;
}

/** Human-readable lines for the differences of one table, `expected` being the rebuilt side. */
export function describeDiff(d: TableDiff, names = { expected: 'rebuilt', actual: 'live' }): string[] {
  const lines: string[] = [];
  const key = (k: Row) => `(${k.map(showValue).join(', ')})`;
  for (const x of d.first) {
    if (x.kind === 'missing') lines.push(`${d.table} ${key(x.key)}: in ${names.expected}, missing from ${names.actual}`);
    else if (x.kind === 'unexpected') lines.push(`${d.table} ${key(x.key)}: in ${names.actual}, not in ${names.expected}`);
    else
      for (const c of x.columns)
        lines.push(`${d.table} ${key(x.key)}: ${c.column} is ${showValue(c.actual)} in ${names.actual}, ${showValue(c.expected)} in ${names.expected}`);
  }
  if (d.differing > d.first.length) lines.push(`${d.table}: … ${d.differing - d.first.length} more differing rows`);
  return lines;
}
