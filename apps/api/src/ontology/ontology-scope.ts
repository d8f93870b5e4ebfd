import { Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';

/**
 * Space/Project scope on the ontology (REFERENCE §1.8): a domain object outside the caller's
 * grants answers exactly like a missing one (404), lists and searches hold only what the
 * grants admit. The scope is the one every read path asks (a key's own lists, an agent
 * confined by its grants, the Space rule); null when nothing is hidden from the caller.
 */
@Injectable()
export class OntologyScope {
  constructor(private readonly scopes: ReadScopeService) {}

  async of(auth: AuthContext): Promise<ReadScope | null> {
    const scope = await this.scopes.of(auth);
    return scope.restricted ? scope : null;
  }

  async allows(auth: AuthContext, uid: string): Promise<boolean> {
    const s = await this.of(auth);
    return !s || s.allows(uid);
  }
}
