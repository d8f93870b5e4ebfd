import { AuthContext } from '@strata/auth/auth-context';
import { DomainError } from '@strata/domain/errors';

/**
 * Graph-wide routes (stats, export, import, decay, purge, clear, POST /nodes/delete,
 * POST /embeddings/configure, POST /ingest/embed-all) see or change the whole organization's
 * graph, so Space- or Project-scoped principals are refused (REFERENCE §1.8, §1.11).
 */
export function assertGraphWide(auth: AuthContext): void {
  if (auth.space_uids !== null || auth.project_uids !== null)
    throw new DomainError(403, 'scope_denied', 'not available to Space- or Project-scoped credentials');
}
