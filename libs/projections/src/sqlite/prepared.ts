import type { Database, Statement } from 'better-sqlite3';

/**
 * A read model's or projection's statement for `sql`, prepared once per connection and kept in
 * the caller's cache: preparing is a parse and a plan, far dearer than the lookups most rows need.
 */
export function prepared(cache: Map<string, Statement>, db: Database, sql: string): Statement {
  let s = cache.get(sql);
  if (!s) cache.set(sql, (s = db.prepare(sql)));
  return s;
}
