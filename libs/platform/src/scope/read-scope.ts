import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { Errors } from '@strata/domain/errors';
import { concealHiddenHolder } from '@strata/domain/graph';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ProvenanceService } from './provenance.service';

/**
 * What a caller may see of its organization's graph. `null` = everything (organization-wide
 * credentials); otherwise the set of visible uids. Objects outside it are reported exactly
 * like missing ones (REFERENCE §1.8: 404, never 403).
 */
export class ReadScope {
  constructor(readonly org: string, readonly visible: ReadonlySet<string> | null) {}

  get restricted(): boolean {
    return this.visible !== null;
  }

  allows(uid: string): boolean {
    return this.visible === null || this.visible.has(uid);
  }

  /** A refusal as this caller may see it: one naming a Series it may not see loses that uid (concealHiddenHolder). */
  conceal(err: unknown): unknown {
    return this.visible === null ? err : concealHiddenHolder(err, (uid) => this.allows(uid));
  }

  /** An edge is visible when both of its endpoints are. */
  allowsEdge(e: { from_uid: string; to_uid: string }): boolean {
    return this.allows(e.from_uid) && this.allows(e.to_uid);
  }

  /**
   * 404 `not_found` naming the field for the first uid a request refers to outside the scope,
   * exactly as for a missing node (REFERENCE §1.8). Call it where liveness is checked, before
   * any type check, so nothing about an invisible node (its type included) is revealed.
   */
  assertVisible(refs: readonly { field: string; uid: string }[]): void {
    if (this.visible === null) return;
    for (const { field, uid } of refs) if (!this.visible.has(uid)) throw Errors.refNotFound(field, uid);
  }

  /** Intersects with another restriction (a request's `project_uid`). */
  narrow(other: ReadonlySet<string> | null): ReadScope {
    if (other === null) return this;
    if (this.visible === null) return new ReadScope(this.org, other);
    return new ReadScope(this.org, new Set([...other].filter((u) => this.visible!.has(u))));
  }

  /** The visible uids, for index queries that take a uid list; undefined when unrestricted. */
  uidList(): string[] | undefined {
    return this.visible === null ? undefined : [...this.visible];
  }
}

/**
 * Resolves a caller's read scope. Project-scoped credentials see their Projects and what
 * those Projects admit (§5.1 chain). Space membership has no graph representation yet, so a
 * Space-only restriction admits nothing: a scoped credential never sees more than granted.
 */
@Injectable()
export class ReadScopeService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly provenance: ProvenanceService,
  ) {}

  async of(auth: AuthContext): Promise<ReadScope> {
    if (auth.space_uids === null && auth.project_uids === null) return new ReadScope(auth.org_id, null);
    const visible = new Set<string>();
    for (const p of auth.project_uids ?? []) for (const u of await this.provenance.admittedBy(auth.org_id, p)) visible.add(u);
    return new ReadScope(auth.org_id, visible);
  }

  /**
   * The scope narrowed to a request's `project_uid` (which must be a live, visible Project):
   * only nodes with provenance in the Project's admitted Documents, plus those Documents and
   * their Chunks (§5.1) — not the Project node itself.
   */
  async withProject(scope: ReadScope, projectUid: string | undefined, field = 'project_uid'): Promise<ReadScope> {
    if (projectUid === undefined) return scope;
    const p = await this.graph.getNode(scope.org, projectUid);
    if (!p || p.tombstone_at !== null || !scope.allows(projectUid)) throw Errors.refNotFound(field, projectUid);
    if (p.node_type !== 'Project') throw Errors.wrongNodeType(field, projectUid, p.node_type, ['Project']);
    return scope.narrow(await this.provenance.withProvenanceIn(scope.org, projectUid));
  }

  /** A node a read names by uid: live and in scope, else 404 naming the field. */
  async liveVisibleNode(scope: ReadScope, uid: string, field: string) {
    const n = await this.graph.getNode(scope.org, uid);
    if (!n || n.tombstone_at !== null || !scope.allows(uid)) throw Errors.refNotFound(field, uid);
    return n;
  }
}
