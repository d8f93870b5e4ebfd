import { FLOAT32_MAX, isFloat32Value, vectorValuesProblem } from './vector-values';

describe('vector values (float32)', () => {
  it('accepts finite numbers up to float32 max in magnitude, subnormals included', () => {
    for (const x of [0, -0, 1, -1.5, 1e-45, FLOAT32_MAX, -FLOAT32_MAX, 3.4e38]) expect(isFloat32Value(x)).toBe(true);
    expect(Math.fround(FLOAT32_MAX)).toBe(FLOAT32_MAX);
    expect(vectorValuesProblem([0.5, -FLOAT32_MAX, FLOAT32_MAX])).toBeNull();
  });

  it('refuses what a float32 cannot hold (it would be stored as ±Infinity), non-finite values and non-numbers', () => {
    for (const x of [1e39, -1e39, 3.5e38, Number.MAX_VALUE, Infinity, -Infinity, NaN, '1', null, undefined]) expect(isFloat32Value(x)).toBe(false);
    expect(Math.fround(1e39)).toBe(Infinity);
  });

  it('names the problem: non-finite values first, then values beyond the float32 range', () => {
    expect(vectorValuesProblem([1, Infinity])).toBe('finite numbers only');
    expect(vectorValuesProblem([1e39, 'x'])).toBe('finite numbers only');
    expect(vectorValuesProblem([0.1, 1e39])).toBe('numbers within the float32 range only (magnitude at most 3.4028234663852886e38)');
    expect(vectorValuesProblem([-1e39])).toMatch(/float32/);
  });
});
