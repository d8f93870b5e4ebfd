import type { Database } from 'better-sqlite3';
import { decodeFts5Averages } from './fts5-averages';
import { TEXT_FTS_COLUMNS, TEXT_ORG_TABLE_RE, TEXT_POSTINGS_TABLE_RE } from './sqlite-text-index';
import { Postings } from './text-postings';

type Row = readonly unknown[];

/** One way to read a table in a canonical order (a DumpSource of `projections verify`). */
export type CanonicalRead = { table: string; columns: string[]; key: number[] } & ({ sql: string } | { rows: (db: Database) => Iterable<Row> });

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * How `projections verify` reads an organization's full-text tables: by node uid, never by
 * the internal row id, which is assigned in write order (a rebuild from a log without purged
 * nodes numbers the rest differently, and must still compare equal).
 * - `text_docs_<name>`: (uid, node_type, layer) by uid;
 * - `text_fts_<name>_post`: its postings (term, uid, weighted frequency, row tokens), whatever
 *   segments they were written and merged into; `text_fts_<name>_segs` (those segments) and a
 *   `text_post_<name>` of the layout before segments (dropped by the next write) are not compared;
 * - `text_fts_<name>`: its token instances (term, uid, column, offset), the text it keeps
 *   (`_content`, by uid) and bm25()'s statistics (`_data`: rows, tokens per column), which
 *   instances alone do not show.
 * Null for any other table. `has` says whether a table exists; `instances` names an fts5vocab
 * 'instance' table over the FTS5 table (made by the caller, who owns the connection).
 */
export function canonicalTextReads(table: string, has: (name: string) => boolean, instances: () => string): CanonicalRead[] | null {
  const p = TEXT_POSTINGS_TABLE_RE.exec(table);
  if (p) return p[2] === 'post' ? [{ table, columns: ['term', 'uid', 'wtf', 'dl'], key: [0, 1], rows: (db) => postingsByUid(db, p[1]) }] : [];
  const m = TEXT_ORG_TABLE_RE.exec(table);
  if (!m || m[1] === 'vocab') return null;
  const name = table.slice(`text_${m[1]}_`.length);
  const docs = quote(`text_docs_${name}`);
  if (m[1] === 'docs') return [{ table, columns: ['uid', 'node_type', 'layer'], key: [0], sql: `SELECT uid, node_type, layer FROM ${docs} ORDER BY uid` }];
  if (m[1] === 'post') return [];

  const out: CanonicalRead[] = [
    {
      table,
      columns: ['term', 'uid', 'col', 'offset'],
      key: [0, 1, 2, 3],
      // a row without a document shows a NULL uid
      sql: `SELECT v.term, d.uid, v.col, v."offset" FROM ${instances()} v LEFT JOIN ${docs} d ON d.id = v.doc ORDER BY v.term, d.uid, v.col, v."offset"`,
    },
  ];
  // version-2 tables were contentless: no text kept
  if (has(`${table}_content`)) {
    const cols = TEXT_FTS_COLUMNS.map((_, i) => `c.c${i}`).join(', ');
    out.push({
      table: `${table}_content`,
      columns: ['uid', ...TEXT_FTS_COLUMNS],
      key: [0],
      sql: `SELECT d.uid, ${cols} FROM ${quote(`${table}_content`)} c LEFT JOIN ${docs} d ON d.id = c.id ORDER BY d.uid`,
    });
  }
  const data = `${table}_data`;
  out.push({ table: data, columns: ['statistic', 'value'], key: [0], rows: (db) => statistics(db, data) });
  return out;
}

/** The postings as (term, uid, weighted frequency, row tokens), by term then uid. */
function postingsByUid(db: Database, name: string): Row[] {
  const uid = db.prepare(`SELECT uid FROM ${quote(`text_docs_${name}`)} WHERE id = ?`).pluck();
  const rows: [string, string | null, number, number][] = [];
  for (const [term, id, wtf, dl] of Postings.decode(db, name)) rows.push([term, (uid.get(id) as string | undefined) ?? null, wtf, dl]);
  return rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : (a[1] ?? '') < (b[1] ?? '') ? -1 : (a[1] ?? '') > (b[1] ?? '') ? 1 : 0));
}

/** The averages record as (statistic, value) rows, sorted by name. */
function statistics(db: Database, data: string): Row[] {
  const block = db.prepare(`SELECT block FROM ${quote(data)} WHERE id = 1`).pluck().get() as Buffer | undefined;
  const avg = decodeFts5Averages(block, TEXT_FTS_COLUMNS.length);
  const rows: [string, number][] = [['rows', avg.rows], ...TEXT_FTS_COLUMNS.map((c, i): [string, number] => [`tokens in ${c}`, avg.tokens[i]])];
  return rows.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}
