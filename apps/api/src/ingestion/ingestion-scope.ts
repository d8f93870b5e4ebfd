import { AuthContext } from '@strata/auth/auth-context';
import { DomainError } from '@strata/domain/errors';

/**
 * Who may ingest new material: a Space-scoped key ingests into its Space (the unit of work's
 * Space rule places every new node there, REFERENCE §13.1); a Project-scoped key is refused,
 * since what it writes would fall outside the Projects it may see (§1.8).
 */
export function assertMayIngest(auth: AuthContext): void {
  if (auth.project_uids !== null) throw new DomainError(403, 'scope_denied', 'not available to Project-scoped credentials');
}
