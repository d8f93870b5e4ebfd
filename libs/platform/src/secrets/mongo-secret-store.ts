import type { Collection, Db } from 'mongodb';
import { SecretCipher } from './secret-cipher';
import { SecretBag, SecretStore, secretOwner } from './secret-store.port';

interface SecretDoc {
  _id: string;
  org_id: string;
  connection_id: string;
  sealed: string;
}

/** Servers mode: a MongoDB collection, sealed values only (the key never reaches the database). */
export class MongoSecretStore implements SecretStore {
  private readonly coll: Collection<SecretDoc>;

  constructor(
    db: Db,
    private readonly cipher: SecretCipher,
  ) {
    this.coll = db.collection<SecretDoc>('mcp_connection_secrets');
  }

  async put(orgId: string, connectionId: string, secrets: SecretBag): Promise<void> {
    const sealed = this.cipher.seal(JSON.stringify(secrets), secretOwner(orgId, connectionId));
    const _id = secretOwner(orgId, connectionId);
    await this.coll.replaceOne({ _id }, { org_id: orgId, connection_id: connectionId, sealed }, { upsert: true });
  }

  async get(orgId: string, connectionId: string): Promise<SecretBag | null> {
    const doc = await this.coll.findOne({ _id: secretOwner(orgId, connectionId) });
    if (!doc) return null;
    const opened = this.cipher.open(doc.sealed, secretOwner(orgId, connectionId));
    const bag = JSON.parse(opened.plaintext) as SecretBag;
    if (opened.stale) await this.put(orgId, connectionId, bag);
    return bag;
  }

  async destroy(orgId: string, connectionId: string): Promise<void> {
    await this.coll.deleteOne({ _id: secretOwner(orgId, connectionId) });
  }
}
