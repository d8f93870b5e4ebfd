import type Database from 'better-sqlite3';
import { openOperationalDb } from '@strata/event-store/sqlite/operational-db';
import { DocumentLedger, DocumentMetadata } from './document-ledger.port';

/** Embedded default: the ledger in `ops.db`. */
export class SqliteDocumentLedger implements DocumentLedger {
  private readonly db: Database.Database;

  /** `file`: a path, or ':memory:' */
  constructor(file: string) {
    this.db = openOperationalDb(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ingested_documents (
        org TEXT NOT NULL, document_uid TEXT NOT NULL, sha256 TEXT NOT NULL, created_at REAL NOT NULL, meta TEXT NOT NULL,
        PRIMARY KEY (org, document_uid)
      );
      CREATE INDEX IF NOT EXISTS ingested_documents_sha ON ingested_documents(org, sha256, created_at);
    `);
  }

  async record(org: string, documentUid: string, meta: DocumentMetadata, now: number): Promise<void> {
    this.db
      .prepare('INSERT OR REPLACE INTO ingested_documents(org, document_uid, sha256, created_at, meta) VALUES (?, ?, ?, ?, ?)')
      .run(org, documentUid, meta.sha256, now, JSON.stringify(meta));
  }

  async withHash(org: string, sha256: string): Promise<string[]> {
    return this.db.prepare('SELECT document_uid FROM ingested_documents WHERE org = ? AND sha256 = ? ORDER BY created_at, document_uid').pluck().all(org, sha256) as string[];
  }

  async get(org: string, documentUid: string): Promise<DocumentMetadata | null> {
    const meta = this.db.prepare('SELECT meta FROM ingested_documents WHERE org = ? AND document_uid = ?').pluck().get(org, documentUid) as string | undefined;
    return meta === undefined ? null : (JSON.parse(meta) as DocumentMetadata);
  }

  async forget(org: string, documentUid: string): Promise<void> {
    this.db.prepare('DELETE FROM ingested_documents WHERE org = ? AND document_uid = ?').run(org, documentUid);
  }

  async forgetOrg(org: string): Promise<void> {
    this.db.prepare('DELETE FROM ingested_documents WHERE org = ?').run(org);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
