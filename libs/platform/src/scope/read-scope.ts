import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { Errors } from '@strata/domain/errors';
import { concealHiddenHolder } from '@strata/domain/graph';
import { GRAPH_READ_MODEL, GraphReadModel, NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { ProvenanceService } from './provenance.service';
import { SpaceAccessService } from './space-access.service';
import { assertGraphWide } from './graph-wide';

const NOTHING_HIDDEN: ReadonlySet<string> = new Set();

/**
 * What a caller may see of its organization's graph: `visible` = null for everything
 * (organization-wide credentials), else the set of visible uids; minus `hidden`, the spaced
 * nodes the Space rule keeps from it (REFERENCE §13.1). Objects outside are reported exactly
 * like missing ones (REFERENCE §1.8: 404, never 403), and an edge touching one is gone too.
 */
export class ReadScope {
  constructor(
    readonly org: string,
    readonly visible: ReadonlySet<string> | null,
    readonly hidden: ReadonlySet<string> = NOTHING_HIDDEN,
  ) {}

  get restricted(): boolean {
    return this.visible !== null || this.hidden.size > 0;
  }

  allows(uid: string): boolean {
    return (this.visible === null || this.visible.has(uid)) && !this.hidden.has(uid);
  }

  /**
   * A node filter limited to what the caller may see: the visible uids when limited to a set,
   * and never a hidden one. Every list and count goes through it.
   */
  nodeFilter<F extends { uids?: readonly string[]; exclude_uids?: readonly string[] }>(f: F): F {
    if (!this.restricted) return f;
    const out: F = { ...f };
    if (f.uids) out.uids = f.uids.filter((u) => this.allows(u));
    else if (this.visible !== null) out.uids = this.uidList();
    if (this.hidden.size && out.uids === undefined) out.exclude_uids = [...(f.exclude_uids ?? []), ...this.hidden];
    return out;
  }

  /** A refusal as this caller may see it: one naming a Series it may not see loses that uid (concealHiddenHolder). */
  conceal(err: unknown): unknown {
    return this.restricted ? concealHiddenHolder(err, (uid) => this.allows(uid)) : err;
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
    if (!this.restricted) return;
    for (const { field, uid } of refs) if (!this.allows(uid)) throw Errors.refNotFound(field, uid);
  }

  /** Intersects with another restriction (a request's `project_uid`). */
  narrow(other: ReadonlySet<string> | null): ReadScope {
    if (other === null) return this;
    if (this.visible === null) return new ReadScope(this.org, other, this.hidden);
    return new ReadScope(this.org, new Set([...other].filter((u) => this.visible!.has(u))), this.hidden);
  }

  /**
   * The visible uids, for index queries that take a uid list; undefined when not limited to a
   * set (hidden nodes may still exist: filter with `nodeFilter` or `allows`).
   */
  uidList(): string[] | undefined {
    return this.visible === null ? undefined : [...this.visible].filter((u) => !this.hidden.has(u));
  }
}

/**
 * Resolves a caller's read scope: the one place every read path asks. Project-scoped
 * credentials see their Projects and what those Projects admit (§5.1 chain); Space-scoped
 * keys the nodes of their Spaces and those Spaces; an agent with grants the spaced nodes its
 * Space grants pass and the admitted sets of its granted Projects (§13.3). On top, the Space rule (§13.1) hides every spaced node the
 * caller may not read. Owners, admins and unlimited keys return before any read.
 */
@Injectable()
export class ReadScopeService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly provenance: ProvenanceService,
    private readonly spaces: SpaceAccessService,
  ) {}

  /** True when the caller sees every node (`of` would answer an unrestricted scope): known without a read or a promise. */
  seesAll(auth: AuthContext): boolean {
    return auth.space_uids === null && auth.project_uids === null && this.spaces.planFor(auth).unlimited;
  }

  async of(auth: AuthContext): Promise<ReadScope> {
    const org = auth.org_id;
    const plan = this.spaces.planFor(auth);
    if (plan.unlimited && auth.space_uids === null && auth.project_uids === null) return new ReadScope(org, null);
    const spaced = await this.spaces.spacedNodes(org);
    const hidden = new Set<string>();
    for (const [uid, node] of spaced) if (!plan.allows(node, 'read')) hidden.add(uid);
    let visible: Set<string> | null = null;
    const within = (set: Set<string>) => (visible = visible === null ? set : new Set([...set].filter((u) => visible!.has(u))));
    if (auth.space_uids !== null || auth.project_uids !== null) {
      const own = new Set<string>();
      for (const p of auth.project_uids ?? []) for (const u of await this.provenance.admittedBy(org, p)) own.add(u);
      const listed = new Set(auth.space_uids ?? []);
      for (const s of listed) own.add(s);
      for (const [uid, node] of spaced) if (node.spaces.some((s) => listed.has(s))) own.add(uid);
      within(own);
    }
    if (plan.agentLimited) {
      const agentSet = new Set<string>();
      for (const [uid, node] of spaced) if (plan.agentAllows(node)) agentSet.add(uid);
      // and the admitted sets of its granted Projects, with the Projects (§13.3)
      for (const g of plan.agentProjects) for (const u of await this.provenance.admittedBy(org, g.project_uid)) agentSet.add(u);
      within(agentSet);
    }
    return new ReadScope(org, visible, hidden);
  }

  /** What agent A may see (REFERENCE §13.3), as a key bound to it with no limits of its own would. */
  ofAgent(org: string, agentId: string): Promise<ReadScope> {
    return this.of({
      org_id: org,
      principal: { kind: 'agent', id: agentId } as AuthContext['principal'],
      credential: 'api_key',
      user_id: null,
      api_key_id: null,
      role: null,
      scopes: ['read', 'write'],
      bound_agent_id: agentId,
      space_uids: null,
      project_uids: null,
      plan: '',
    });
  }

  /**
   * Graph-wide routes (stats, export, import, decay, purge, clear, bulk delete) see or change
   * the whole graph at once: refused (403 `scope_denied`) to Space- or Project-scoped
   * credentials, and to any caller the Space rule hides a node from, so nothing spaced leaks
   * through them.
   */
  async assertGraphWide(auth: AuthContext): Promise<void> {
    assertGraphWide(auth);
    if (this.spaces.planFor(auth).unlimited) return;
    if ((await this.of(auth)).restricted) assertGraphWide({ ...auth, space_uids: [] });
  }

  /**
   * The scope of a caller on a route that counts the whole graph (`GET /stats`): refused (403
   * `scope_denied`) to Space- or Project-scoped credentials and to an agent confined by its
   * grants; any other caller gets its scope, whose `hidden` nodes the counts leave out.
   */
  async graphWideScope(auth: AuthContext): Promise<ReadScope> {
    assertGraphWide(auth);
    const scope = await this.of(auth);
    if (scope.visible !== null) assertGraphWide({ ...auth, space_uids: [] });
    return scope;
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
