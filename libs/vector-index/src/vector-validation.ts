import { DomainError } from '@strata/domain/errors';

/** Throws 400 `dimension_mismatch` / `invalid_field` for a vector that does not fit the space. */
export function checkVector(vector: ArrayLike<number> | undefined, dimensions: number): void {
  if (!vector || typeof vector.length !== 'number') {
    throw new DomainError(400, 'invalid_field', 'vector must be an array of numbers', { field: 'vector' });
  }
  if (vector.length !== dimensions) {
    throw new DomainError(400, 'dimension_mismatch', `vector has ${vector.length} dimensions, expected ${dimensions}`, {
      expected: dimensions,
      actual: vector.length,
    });
  }
  for (let i = 0; i < vector.length; i++) {
    if (typeof vector[i] !== 'number' || !Number.isFinite(vector[i])) {
      throw new DomainError(400, 'invalid_field', 'vector values must be finite numbers', { field: 'vector' });
    }
  }
}

export function notConfigured(org: string): DomainError {
  return new DomainError(501, 'embedding_not_configured', `embeddings are not configured for organization ${org}`);
}
