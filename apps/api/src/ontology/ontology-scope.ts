import { Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';

/**
 * Space/Project scope on the ontology (REFERENCE §1.8): a domain object outside the caller's
 * grants answers exactly like a missing one (404), lists and searches hold only what the
 * grants admit. Organization-wide credentials return before any read.
 */
@Injectable()
export class OntologyScope {
  constructor(private readonly scopes: ReadScopeService) {}

  async of(auth: AuthContext): Promise<ReadScope | null> {
    if (auth.space_uids === null && auth.project_uids === null) return null;
    return this.scopes.of(auth);
  }

  async allows(auth: AuthContext, uid: string): Promise<boolean> {
    const s = await this.of(auth);
    return !s || s.allows(uid);
  }
}
