import { DomainError } from '../errors';

/** One problem found while validating an ontology input: where, and what is wrong. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/** The operational ontology's errors (REFERENCE §11, §1.10). */
export const OntologyErrors = {
  validationFailed: (errors: ValidationProblem[]) =>
    new DomainError(422, 'schema_validation_failed', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors }),
  schemaNotFound: (id: string) => new DomainError(404, 'not_found', `ontology schema ${id} not found`, { id }),
  typeNotFound: (kind: 'object' | 'relation', id: string) => new DomainError(404, 'not_found', `${kind} type ${id} not found`, { id }),
  proposalNotFound: (id: string) => new DomainError(404, 'not_found', `proposal ${id} not found`, { id }),
  objectNotFound: (uid: string) => new DomainError(404, 'not_found', `domain object ${uid} not found`, { uid }),
  schemaNotActive: (id: string, status: string) =>
    new DomainError(409, 'schema_not_active', `ontology schema ${id} is ${status}; this needs an active schema`, { schema_id: id, status }),
  duplicateType: (name: string, existingId: string) =>
    new DomainError(409, 'duplicate', `a type named ${name} already exists in this schema`, { existing_id: existingId }),
  /**
   * `existingUid` null: the holder is outside the caller's scope, so the refusal keeps the
   * code but not its uid (REFERENCE §1.8). Identity stays unique organization-wide, which
   * leaves no answer that hides the holder entirely; this one reveals only that the identity
   * the caller named is taken.
   */
  duplicateObject: (objectType: string, existingUid: string | null) =>
    new DomainError(409, 'duplicate_object', `a ${objectType} with the same identity already exists`, existingUid === null ? {} : { existing_uid: existingUid }),
  cardinalityViolation: (relation: string, cardinality: string, field: 'from_uid' | 'to_uid', uid: string) =>
    new DomainError(409, 'cardinality_violation', `${relation} is ${cardinality}: ${uid} already has one`, { field, uid, cardinality }),
};

/** Throws 422 `schema_validation_failed` when any problem was found. */
export function assertNoProblems(problems: ValidationProblem[]): void {
  if (problems.length) throw OntologyErrors.validationFailed(problems);
}
