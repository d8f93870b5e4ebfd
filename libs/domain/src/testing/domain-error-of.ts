import { DomainError } from '../errors';

/** Runs `fn` and returns the DomainError it throws; fails the test when it throws none. */
export function domainErrorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}
