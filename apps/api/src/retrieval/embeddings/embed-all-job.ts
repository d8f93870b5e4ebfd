/** The kind of every embedding job: embed-all, the re-embedding after a model change, the built-in embedder's backfill. */
export const EMBED_ALL_KIND = 'embed_all';
/** one provider embedding job per organization at a time */
export const EMBED_ALL_DEDUPE_KEY = 'embed_all';
/** one backfill per organization at a time, beside a provider job */
export const BACKFILL_DEDUPE_KEY = 'embed_all:backfill';

/** What an embedding job is enqueued with. */
export interface EmbedAllInput {
  title: string;
  /** every live node (after a model change), not only those without a vector */
  reembed: boolean;
  /** the built-in embedder's backfill, run by the embedded vector store (no provider calls, no events) */
  backfill?: boolean;
  total_nodes: number;
}
