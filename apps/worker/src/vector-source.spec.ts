import { vectorSpaceOf } from './vector-source';

describe('vectorSpaceOf', () => {
  it('keeps dimensions and metric, and says whether vectors are computed by the built-in embedder', () => {
    expect(vectorSpaceOf({ provider: 'builtin', model: 'lexical', dimensions: 384, distance_metric: 'cosine', configured_at: null })).toEqual({
      dimensions: 384,
      metric: 'cosine',
      builtin: true,
    });
    expect(vectorSpaceOf({ provider: 'openai', model: 'm', dimensions: 8, distance_metric: 'dot', configured_at: 1 })).toEqual({ dimensions: 8, metric: 'dot', builtin: false });
  });

  it('has no space when embeddings are off', () => {
    expect(vectorSpaceOf(null)).toBeNull();
  });
});
