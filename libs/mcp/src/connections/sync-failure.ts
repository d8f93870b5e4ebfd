export type SyncFailureCode = 'unreachable' | 'timeout' | 'protocol_error' | 'auth_failed' | 'too_many_tools';

/** A sync or call that failed at the server: recorded on the connection (REFERENCE §15.3), never a secret in it. */
export class SyncFailure extends Error {
  constructor(
    readonly code: SyncFailureCode,
    message: string,
  ) {
    super(message);
  }
}
