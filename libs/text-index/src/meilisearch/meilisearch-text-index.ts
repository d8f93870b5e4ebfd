// Type-only import through the package's d.ts path: `meilisearch` is ESM-only and our
// CommonJS/node10 resolution cannot see its `exports` map. Erased at compile time.
import type { Index, Meilisearch, Task } from 'meilisearch/dist/index';
import type { SalienceChange, TextDocument, TextHit, TextIndex, TextQuery } from '../text-index.port';
import {
  DEFAULT_MEILI_INDEX,
  MEILI_INDEX_SETTINGS,
  type MeiliNodeDocument,
  buildSearchFilter,
  encodeDocumentId,
  mergeTermHits,
  orgFilter,
  perTermLimit,
  searchTerms,
  toMeiliDocument,
  withTieBreakRules,
} from './meilisearch-translation';

export type MeilisearchModule = typeof import('meilisearch/dist/index');

export interface MeilisearchTextIndexOptions {
  /** e.g. http://localhost:7700 (ignored when `client` is given) */
  url?: string;
  apiKey?: string;
  /** an already built client (tests, or a shared one) */
  client?: Meilisearch;
  indexUid?: string;
  /** how long a write waits for its Meilisearch task (ms, default 30 s) */
  taskTimeoutMs?: number;
  /** per HTTP request (ms, default 10 s) */
  requestTimeoutMs?: number;
}

/** Documents sent per task; Meilisearch batches well but payloads stay bounded. */
const UPSERT_BATCH = 1000;

/**
 * Loads the ESM-only client. Node ≥ 20.19 can `require()` an ES module synchronously, which
 * is what the compiled CommonJS app does. (Jest's module system cannot on Node 20; the
 * server test suite builds its client outside the sandbox and passes `client`.)
 */
export function loadMeilisearchModule(): MeilisearchModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('meilisearch') as MeilisearchModule;
}

/**
 * TextIndex on Meilisearch: one index for every organization (org is a filterable attribute
 * and every query filters on it), primary key `id` = encoded `${org}:${uid}`.
 *
 * Differences from the SQLite adapter, by nature of the engine: `score` is the sum of
 * Meilisearch ranking scores (0..1 per matched term), not BM25; Meilisearch is typo-tolerant
 * and prefix-matches the last word. Stemming and diacritic folding match because we index and
 * query analysed words. Writes wait for their task, so a completed upsert is searchable.
 *
 * One index can serve every organization: Meilisearch's ranking score uses no corpus
 * statistics (no IDF; a document's score does not depend on the other documents of the
 * index), so unlike a shared BM25 index, another organization's documents never change a
 * score or an order here.
 */
export class MeilisearchTextIndex implements TextIndex {
  private readonly client: Meilisearch;
  private readonly indexUid: string;
  private readonly taskTimeoutMs: number;
  private ready?: Promise<Index<MeiliNodeDocument>>;

  constructor(options: MeilisearchTextIndexOptions) {
    this.indexUid = options.indexUid ?? DEFAULT_MEILI_INDEX;
    this.taskTimeoutMs = options.taskTimeoutMs ?? 30_000;
    if (options.client) {
      this.client = options.client;
    } else {
      if (!options.url) throw new Error('MeilisearchTextIndex needs a url or a client');
      const { Meilisearch: Client } = loadMeilisearchModule();
      this.client = new Client({ host: options.url, apiKey: options.apiKey, timeout: options.requestTimeoutMs ?? 10_000 });
    }
  }

  async upsert(docs: TextDocument[]): Promise<void> {
    if (!docs.length) return;
    const index = await this.index();
    for (let i = 0; i < docs.length; i += UPSERT_BATCH) {
      const batch = docs.slice(i, i + UPSERT_BATCH).map(toMeiliDocument);
      await this.settle(index.addDocuments(batch, { primaryKey: 'id' }), 'add documents');
    }
  }

  /**
   * Partial updates: only `salience` changes. A uid not indexed would come back as a document
   * without org or text, which no query (always filtered by org) can return or count.
   */
  async setSalience(org: string, changes: SalienceChange[]): Promise<void> {
    if (!changes.length) return;
    const index = await this.index();
    for (let i = 0; i < changes.length; i += UPSERT_BATCH) {
      const batch = changes.slice(i, i + UPSERT_BATCH).map((c) => ({ id: encodeDocumentId(org, c.uid), salience: c.salience }));
      await this.settle(index.updateDocuments(batch, { primaryKey: 'id' }), 'update salience');
    }
  }

  async remove(org: string, uids: string[]): Promise<void> {
    if (!uids.length) return;
    const index = await this.index();
    await this.settle(index.deleteDocuments(uids.map((uid) => encodeDocumentId(org, uid))), 'delete documents');
  }

  async removeOrg(org: string): Promise<void> {
    const index = await this.index();
    await this.settle(index.deleteDocuments({ filter: orgFilter(org) }), 'delete organization documents');
  }

  async search(q: TextQuery): Promise<TextHit[]> {
    const limit = Math.floor(q.limit);
    if (!(limit > 0)) return [];
    if (q.uids && q.uids.length === 0) return [];
    const terms = searchTerms(q.query);
    if (!terms.length) return [];
    await this.index();
    const filter = buildSearchFilter(q);
    const perTerm = perTermLimit(limit);
    // One sub-query per term, summed: Meilisearch has no pure OR matching strategy.
    const response = await this.client.multiSearch({
      queries: terms.map((term) => ({
        indexUid: this.indexUid,
        q: term,
        filter,
        limit: perTerm,
        showRankingScore: true,
        attributesToRetrieve: ['uid', 'salience'],
      })),
    });
    return mergeTermHits(
      response.results.map((r) => r.hits as Array<{ uid: string; salience?: number; _rankingScore?: number }>),
      limit,
      q.min_score,
    );
  }

  async count(org: string): Promise<number> {
    const index = await this.index();
    const res = await index.getDocuments({ filter: orgFilter(org), limit: 1, fields: ['id'] });
    return res.total;
  }

  async close(): Promise<void> {
    // the client holds no sockets of its own (fetch keeps its pool); nothing to release
  }

  /** Creates the index and applies settings once per process. */
  private index(): Promise<Index<MeiliNodeDocument>> {
    if (!this.ready) {
      this.ready = this.prepare().catch((err) => {
        this.ready = undefined; // let the next call retry, e.g. once the server is up
        throw err;
      });
    }
    return this.ready;
  }

  private async prepare(): Promise<Index<MeiliNodeDocument>> {
    const task = await this.client.createIndex(this.indexUid, { primaryKey: 'id' }).waitTask({ timeout: this.taskTimeoutMs });
    if (task.status === 'failed' && task.error?.code !== 'index_already_exists') {
      throw new Error(`meilisearch: create index ${this.indexUid} failed: ${task.error?.message ?? 'unknown error'}`);
    }
    const index = this.client.index<MeiliNodeDocument>(this.indexUid);
    const rules = await index.getRankingRules();
    await this.settle(index.updateSettings({ ...MEILI_INDEX_SETTINGS, rankingRules: withTieBreakRules(rules) }), 'update settings');
    return index;
  }

  private async settle(enqueued: { waitTask: (o?: { timeout?: number }) => Promise<Task> }, what: string): Promise<Task> {
    const task = await enqueued.waitTask({ timeout: this.taskTimeoutMs });
    if (task.status !== 'succeeded') {
      throw new Error(`meilisearch: ${what} task ${task.uid} ${task.status}: ${task.error?.message ?? 'no detail'}`);
    }
    return task;
  }
}
