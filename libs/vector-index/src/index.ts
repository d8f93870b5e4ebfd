export * from './vector-index.port';
export {
  EmbeddedVectorIndex,
  HNSW_DEFAULTS,
  type EmbeddedVectorIndexOptions,
} from './embedded/embedded-vector-index';
export { exactSearch, similarity } from './embedded/vector-math';
export { QdrantVectorIndex, type QdrantVectorIndexOptions } from './qdrant/qdrant-vector-index';
export { collectionName as qdrantCollectionName, pointId as qdrantPointId } from './qdrant/qdrant-translation';
