import Database from 'better-sqlite3';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { EmbeddedLogReader, EmbeddedProjectionRunner } from '@strata/projections/embedded/embedded-projection-runner';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { createEmbedded } from '@strata/projections/registry/projection-definition';
import { PROJECTIONS } from '@strata/projections/registry/projection-registry';
import { openProjectionsDb } from '../storage/embedded-storage';

/** A projections database with the code's projections on it (live, beside, or scratch). */
export interface ProjectionSet {
  file: string;
  db: Database.Database;
  runner: EmbeddedProjectionRunner;
  close(): void;
}

/** How the projection code is set up: as the service's configuration says (STRATA_TEXT_POSTINGS). */
export interface ProjectionSetOptions {
  /** the text index keeps postings of its own (SqliteTextIndexOptions.postings) */
  textPostings: boolean;
}

const EMPTY_LOG: EmbeddedLogReader = { headPositionSync: () => 0, *iterateAll() {} };

function runnerOn(db: Database.Database, log: EmbeddedLogReader, opts: ProjectionSetOptions, only?: readonly string[]): EmbeddedProjectionRunner {
  const graph = new SqliteGraphStore(db);
  const text = new SqliteTextIndex(db, { postings: opts.textPostings });
  const defs = only ? PROJECTIONS.filter((d) => only.includes(d.name)) : PROJECTIONS;
  return new EmbeddedProjectionRunner(db, log, defs.map((d) => createEmbedded(d, { db, graph, text })));
}

/** Names and code versions of the embedded projections, in application order. */
export function projectionCatalogue(): { name: string; version: number }[] {
  // the version is the projection's own: build each once, on a scratch database
  const db = new Database(':memory:');
  try {
    return runnerOn(db, EMPTY_LOG, { textPostings: false }).projections.map((p) => ({ name: p.name, version: p.version }));
  } finally {
    db.close();
  }
}

/**
 * Opens (creating when missing) a projections file with the same projection code the service
 * runs, optionally only some of the projections (they still share one database).
 */
export function openProjectionSet(file: string, log: EmbeddedLogReader, opts: ProjectionSetOptions, only?: readonly string[]): ProjectionSet {
  const db = openProjectionsDb(file);
  try {
    const runner = runnerOn(db, log, opts, only);
    return { file, db, runner, close: () => db.open && db.close() };
  } catch (err) {
    db.close();
    throw err;
  }
}
