/**
 * A failure the client caused or must know about. Carries the HTTP status and the stable
 * `code` of REFERENCE §1.10, plus context keys (`field`, `uid`, `valid_fields`…) that are
 * copied into the error body as they are.
 */
export class DomainError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly context: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toBody(): Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.context };
  }
}

export const Errors = {
  missingField: (field: string, message?: string) =>
    new DomainError(400, 'missing_field', message ?? `${field} is required`, { field }),
  invalidField: (field: string, message: string, extra: Record<string, unknown> = {}) =>
    new DomainError(400, 'invalid_field', message, { field, ...extra }),
  invalidUid: (field: string) =>
    new DomainError(400, 'invalid_uid', `${field} must be a uid of 1-128 characters from [A-Za-z0-9._:-]`, { field }),
  invalidProps: (message: string, extra: Record<string, unknown> = {}) =>
    new DomainError(400, 'invalid_props', message, extra),
  unknownAction: (action: unknown, valid: readonly string[]) =>
    new DomainError(
      400,
      'unknown_action',
      action === undefined || action === null || action === ''
        ? `action is required; valid actions: ${valid.join(', ')}`
        : `unknown action '${String(action)}'; valid actions: ${valid.join(', ')}`,
      { valid_actions: [...valid] },
    ),
  notFound: (message: string, extra: Record<string, unknown> = {}) =>
    new DomainError(404, 'not_found', message, extra),
  refNotFound: (field: string, uid: string) =>
    new DomainError(404, 'not_found', `${field}: node ${uid} not found`, { field, uid }),
  wrongNodeType: (field: string, uid: string, actual: string, expected: readonly string[]) =>
    new DomainError(400, 'wrong_node_type', `${field}: node ${uid} is a ${actual}, expected ${expected.join(' or ')}`, {
      field,
      uid,
      expected: [...expected],
    }),
  versionConflict: (current: number, expected?: number) =>
    new DomainError(
      409,
      'version_conflict',
      expected === undefined ? `version conflict (current version ${current})` : `expected version ${expected} but current version is ${current}`,
      { current_version: current },
    ),
  tombstoned: (what: string, uid: string) =>
    new DomainError(409, 'tombstoned', `${what} ${uid} is tombstoned; restore it first`, { uid }),
  invalidTransition: (message: string, fromStatus: string | null, allowed: readonly string[]) =>
    new DomainError(409, 'invalid_transition', message, { from_status: fromStatus, allowed: [...allowed] }),
  duplicate: (message: string, extra: Record<string, unknown> = {}) => new DomainError(409, 'duplicate', message, extra),
  immutableField: (field: string) =>
    new DomainError(422, 'immutable_field', `${field} cannot be changed`, { field }),
  forbidden: (message = 'forbidden') => new DomainError(403, 'forbidden', message),
};
