import type { Database } from 'better-sqlite3';
import { canonicalTextReads } from '@strata/text-index/sqlite/text-tables-canonical';
import { Row } from './table-diff';

/** Bookkeeping tables: not projection state. */
const SKIPPED = new Set(['checkpoints', 'rebuild_pending']);
const FTS5_SHADOWS = ['_data', '_idx', '_content', '_docsize', '_config'];

export type DumpSource = {
  /** the name reported in differences */
  table: string;
  columns: string[];
  /** indexes into `columns` of the sort key */
  key: number[];
} & ({ sql: string } | { /** rows already in key order */ rows: (db: Database) => Iterable<Row> });

/**
 * How to read every projection table of a database in a canonical order. Plain tables are
 * read sorted by their primary key (every column when there is none). An FTS5 index is read
 * through an `instance` vocabulary (term, row, column, offset), which does not depend on how
 * the index happened to merge its segments; its shadow tables and other virtual tables are
 * not compared. The full-text index's tables are read by node uid instead of row id, with
 * their statistics (text-tables-canonical.ts). Call on a connection that may create TEMP tables.
 */
export function dumpSources(db: Database, tables?: readonly string[]): DumpSource[] {
  const all = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string; sql: string | null }[];
  const fts = new Set(all.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? '') && /USING\s+fts5\s*\(/i.test(t.sql ?? '')).map((t) => t.name));
  const names = new Set(all.map((t) => t.name));
  const out: DumpSource[] = [];
  for (const t of all) {
    if (SKIPPED.has(t.name)) continue;
    if (tables && !tables.includes(t.name)) continue;
    if ([...fts].some((f) => FTS5_SHADOWS.some((s) => t.name === f + s))) continue;
    const instances = () => {
      const vocab = `temp."strata_dump_${t.name}"`;
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(main, ${quote(t.name)}, 'instance')`);
      return vocab;
    };
    const text = canonicalTextReads(t.name, (n) => names.has(n), instances);
    if (text) {
      out.push(...text);
      continue;
    }
    if (fts.has(t.name)) {
      const vocab = instances();
      out.push({
        table: t.name,
        columns: ['term', 'doc', 'col', 'offset'],
        key: [0, 1, 2, 3],
        sql: `SELECT term, doc, col, "offset" FROM ${vocab} ORDER BY term, doc, col, "offset"`,
      });
      continue;
    }
    if (/^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')) continue;
    const info = db.prepare(`PRAGMA table_info(${quote(t.name)})`).all() as { name: string; pk: number }[];
    const columns = info.map((c) => c.name);
    const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const key = pk.length ? pk.map((c) => columns.indexOf(c.name)) : columns.map((_, i) => i);
    const order = key.map((i) => quote(columns[i])).join(', ');
    out.push({ table: t.name, columns, key, sql: `SELECT ${columns.map(quote).join(', ')} FROM ${quote(t.name)} ORDER BY ${order}` });
  }
  return out;
}

/** The rows of one source, streamed in its canonical order. */
export function* dumpRows(db: Database, source: DumpSource): Generator<Row> {
  if ('rows' in source) yield* source.rows(db);
  else yield* db.prepare(source.sql).raw(true).iterate() as IterableIterator<Row>;
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
