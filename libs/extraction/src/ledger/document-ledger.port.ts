import { ConversationContext, PageOffset } from '@strata/domain/ingestion';
import { Layer } from '@strata/domain/records';

/** What ingestion keeps about a Document outside its props (REFERENCE §9.3: internal metadata). */
export interface DocumentMetadata {
  /** SHA-256 of the content, hex */
  sha256: string;
  page_offsets: PageOffset[];
  context: ConversationContext;
  /** the layer passes the document was ingested with (a resume runs them again by default) */
  layers: Layer[];
  /** the schema of its `ontology` pass, when it has one (absent from documents recorded before) */
  ontology_schema_id?: string | null;
}

/**
 * Ingested documents' internal metadata: the content hash (identical content is answered with
 * the existing Document), the page map and the conversation context a resumed job needs.
 * Operational data beside the graph, like jobs: embedded in `ops.db`, servers in MongoDB.
 */
export interface DocumentLedger {
  record(org: string, documentUid: string, meta: DocumentMetadata, now: number): Promise<void>;
  /** documents recorded with this hash, oldest first (the caller checks which are live) */
  withHash(org: string, sha256: string): Promise<string[]>;
  get(org: string, documentUid: string): Promise<DocumentMetadata | null>;
  /** a purged document leaves nothing behind */
  forget(org: string, documentUid: string): Promise<void>;
  /** `POST /clear` */
  forgetOrg(org: string): Promise<void>;
  close(): Promise<void>;
}

export const DOCUMENT_LEDGER = Symbol('DOCUMENT_LEDGER');
