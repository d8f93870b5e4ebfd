import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SecretCipher } from './secret-cipher';
import { SecretBag, SecretStore, secretOwner } from './secret-store.port';

export const SECRETS_FILE = 'secrets.db';

/** Embedded: one SQLite file in the data dir, apart from the event log and its projections. */
export class SqliteSecretStore implements SecretStore {
  private readonly db: Database.Database;

  constructor(
    dataDir: string,
    private readonly cipher: SecretCipher,
  ) {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, SECRETS_FILE);
    this.db = new Database(file);
    fs.chmodSync(file, 0o600);
    this.db.pragma('journal_mode = WAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS connection_secrets (org_id TEXT NOT NULL, connection_id TEXT NOT NULL, sealed TEXT NOT NULL, PRIMARY KEY (org_id, connection_id))');
  }

  async put(orgId: string, connectionId: string, secrets: SecretBag): Promise<void> {
    const sealed = this.cipher.seal(JSON.stringify(secrets), secretOwner(orgId, connectionId));
    this.db.prepare('INSERT INTO connection_secrets (org_id, connection_id, sealed) VALUES (?, ?, ?) ON CONFLICT (org_id, connection_id) DO UPDATE SET sealed = excluded.sealed').run(orgId, connectionId, sealed);
  }

  async get(orgId: string, connectionId: string): Promise<SecretBag | null> {
    const row = this.db.prepare('SELECT sealed FROM connection_secrets WHERE org_id = ? AND connection_id = ?').get(orgId, connectionId) as { sealed: string } | undefined;
    if (!row) return null;
    const opened = this.cipher.open(row.sealed, secretOwner(orgId, connectionId));
    const bag = JSON.parse(opened.plaintext) as SecretBag;
    if (opened.stale) await this.put(orgId, connectionId, bag);
    return bag;
  }

  async destroy(orgId: string, connectionId: string): Promise<void> {
    this.db.prepare('DELETE FROM connection_secrets WHERE org_id = ? AND connection_id = ?').run(orgId, connectionId);
  }

  /** the sealed form as stored (tests: nothing readable at rest) */
  rawSealed(orgId: string, connectionId: string): string | null {
    const row = this.db.prepare('SELECT sealed FROM connection_secrets WHERE org_id = ? AND connection_id = ?').get(orgId, connectionId) as { sealed: string } | undefined;
    return row?.sealed ?? null;
  }

  close(): void {
    this.db.close();
  }
}
