export const EMBEDDING_PROVIDER_FACTORY = Symbol('EMBEDDING_PROVIDER_FACTORY');

export interface EmbeddingProvider {
  /** 'builtin' (offline lexical) or 'openai' (OpenAI-compatible HTTP) */
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
  /** true for the built-in lexical embedder: it matches words, not meaning */
  readonly lexical: boolean;
  embed(texts: string[]): Promise<number[][]>;
}
