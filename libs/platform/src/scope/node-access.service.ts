import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { Errors } from '@strata/domain/errors';
import { spaceWriteForbidden } from '@strata/domain/governance';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScopeService } from './read-scope';
import { SpaceAccessService } from './space-access.service';
import { readModelMembership } from './space-membership';

export type NodeAccess = 'none' | 'read' | 'write';

/**
 * May this principal read or write this node? The one answer every area asks before it
 * reads a node on a caller's behalf or writes one (REFERENCE §1.8 scope and §13.1 Spaces):
 * `none` — absent for it (report 404); `read` — visible, writing it is 403 `forbidden`;
 * `write` — the Space rule allows writing (the credential's own write scope is checked by the
 * guard).
 */
@Injectable()
export class NodeAccessService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly scopes: ReadScopeService,
    private readonly spaces: SpaceAccessService,
  ) {}

  async accessTo(auth: AuthContext, uid: string): Promise<NodeAccess> {
    const scope = await this.scopes.of(auth);
    if (!scope.allows(uid)) return 'none';
    const plan = this.spaces.planFor(auth);
    if (plan.unlimited) return 'write';
    const node = (await this.spaces.spacesOf(readModelMembership(this.graph, auth.org_id), [uid])).get(uid);
    return !node || plan.allows(node, 'write') ? 'write' : 'read';
  }

  /** 404 `not_found` naming `field` when the node is absent for the caller; 403 `forbidden` when it may only read it. */
  async assertMayWrite(auth: AuthContext, uid: string, field = 'uid'): Promise<void> {
    const access = await this.accessTo(auth, uid);
    if (access === 'none') throw Errors.refNotFound(field, uid);
    if (access === 'read') throw spaceWriteForbidden(uid);
  }
}
