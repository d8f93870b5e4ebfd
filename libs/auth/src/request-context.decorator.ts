import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { writesOnlyInSpaces } from '@strata/domain/governance';
import { AuthContext, StrataRequestState } from './auth-context';

export function stateOf(req: unknown): StrataRequestState {
  return (req as { strata: StrataRequestState }).strata;
}

/** The authenticated caller. Fails loudly if a route was reached without the guard. */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const state = stateOf(ctx.switchToHttp().getRequest());
  if (!state?.auth) throw new DomainError(401, 'unauthorized', 'missing Authorization: Bearer <token> header');
  return state.auth;
});

/** The request id (echoed from X-Request-Id or generated). */
export const RequestId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  return stateOf(ctx.switchToHttp().getRequest())?.request_id ?? '';
});

/** Writes need the `write` scope (REFERENCE §1.10 `read_only_credential`). */
export function assertCanWrite(auth: AuthContext): void {
  if (!auth.scopes.includes('write'))
    throw new DomainError(403, 'read_only_credential', 'this credential is read-only; writes are not allowed');
}

/**
 * Writes made only of graph changes the Space rule judges: an org viewer passes here, and the
 * unit of work lets it write only inside a Space it holds a `write` grant on (REFERENCE §13.1).
 */
export function assertCanWriteInSpaces(auth: AuthContext): void {
  if (!writesOnlyInSpaces(auth)) assertCanWrite(auth);
}
