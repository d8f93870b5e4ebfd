export * from './embedding-provider.port';
export { UpstreamError } from './errors';
export { LexicalEmbedder, type LexicalEmbedderOptions } from './embeddings/lexical-embedder';
export { OpenAIEmbeddingProvider, type OpenAIEmbeddingProviderOptions } from './embeddings/openai-embedding-provider';
export { LlmNotConfiguredError } from './errors';
export * from './llm/chat-model.port';
