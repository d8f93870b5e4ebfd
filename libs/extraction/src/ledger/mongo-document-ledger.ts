import type { Collection, Db } from 'mongodb';
import { DocumentLedger, DocumentMetadata } from './document-ledger.port';

interface LedgerDocument {
  _id: string;
  org: string;
  document_uid: string;
  sha256: string;
  created_at: number;
  meta: DocumentMetadata;
}

const key = (org: string, uid: string) => JSON.stringify([org, uid]);

/** Servers mode: the ledger in MongoDB, shared by the replicas. */
export class MongoDocumentLedger implements DocumentLedger {
  private readonly docs: Collection<LedgerDocument>;
  private indexed: Promise<unknown> | null = null;

  constructor(db: Db) {
    this.docs = db.collection<LedgerDocument>('ingested_documents');
  }

  private ensureIndexes(): Promise<unknown> {
    this.indexed ??= this.docs.createIndexes([{ key: { org: 1, sha256: 1, created_at: 1 } }]);
    return this.indexed;
  }

  async record(org: string, documentUid: string, meta: DocumentMetadata, now: number): Promise<void> {
    await this.ensureIndexes();
    const doc: LedgerDocument = { _id: key(org, documentUid), org, document_uid: documentUid, sha256: meta.sha256, created_at: now, meta };
    await this.docs.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async withHash(org: string, sha256: string): Promise<string[]> {
    await this.ensureIndexes();
    const rows = await this.docs.find({ org, sha256 }).sort({ created_at: 1, document_uid: 1 }).toArray();
    return rows.map((r) => r.document_uid);
  }

  async get(org: string, documentUid: string): Promise<DocumentMetadata | null> {
    return (await this.docs.findOne({ _id: key(org, documentUid) }))?.meta ?? null;
  }

  async forget(org: string, documentUid: string): Promise<void> {
    await this.docs.deleteOne({ _id: key(org, documentUid) });
  }

  async forgetOrg(org: string): Promise<void> {
    await this.docs.deleteMany({ org });
  }

  async close(): Promise<void> {
    // the client belongs to the server storage
  }
}
