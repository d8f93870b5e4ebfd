import type { ModuleRef } from '@nestjs/core';
import { ServerEmbeddingDefault, sameEmbeddingSpace } from './server-embedding-default';

const lexical = { provider: 'builtin', model: 'strata-lexical-v1', dimensions: 384, distance_metric: 'cosine' as const };

function modules(get: () => unknown): ModuleRef {
  return { get } as unknown as ModuleRef;
}

describe('ServerEmbeddingDefault', () => {
  it("is the server default configuration of the retrieval module's EmbeddingSettings, looked up once", () => {
    const get = jest.fn(() => ({ defaultConfig: () => ({ ...lexical, configured_at: null }) }));
    const d = new ServerEmbeddingDefault(modules(get));
    expect(d.get()).toEqual(lexical);
    expect(d.get()).toEqual(lexical);
    expect(get).toHaveBeenCalledTimes(1);
  });

  it('is null when the operator turned embeddings off, or when no retrieval module is there', () => {
    expect(new ServerEmbeddingDefault(modules(() => ({ defaultConfig: () => null }))).get()).toBeNull();
    const missing = modules(() => {
      throw new Error('not found');
    });
    expect(new ServerEmbeddingDefault(missing).get()).toBeNull();
  });
});

describe('sameEmbeddingSpace', () => {
  it('needs provider, model, dimensions and metric to agree', () => {
    expect(sameEmbeddingSpace(lexical, { ...lexical })).toBe(true);
    for (const other of [{ provider: 'openai' }, { model: 'm' }, { dimensions: 4 }, { distance_metric: 'dot' as const }])
      expect(sameEmbeddingSpace(lexical, { ...lexical, ...other })).toBe(false);
  });
});
