export * from './text-index.port';
export { SqliteTextIndex, type SqliteTextIndexOptions } from './sqlite/sqlite-text-index';
export {
  MeilisearchTextIndex,
  loadMeilisearchModule,
  type MeilisearchModule,
  type MeilisearchTextIndexOptions,
} from './meilisearch/meilisearch-text-index';
export { DEFAULT_MEILI_INDEX } from './meilisearch/meilisearch-translation';
export { queryTerms, analyzeText, foldText } from './analysis/text-analysis';
