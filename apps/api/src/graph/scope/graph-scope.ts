import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { DomainError, Errors } from '@strata/domain/errors';
import { EdgeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel, NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { ReadScopeService } from '@strata/platform/scope/read-scope';

/**
 * Space/Project scope on the generic graph routes (REFERENCE §1.8): a node outside the caller's
 * grants answers exactly like a missing one (404), an edge is visible when both of its endpoints
 * are, and lists only hold what is visible. The Space rule (§13.1) hides spaced nodes the
 * caller may not read the same way. Owners, admins and unlimited keys — nearly every request —
 * resolve to an unrestricted scope without a read.
 */
@Injectable()
export class GraphScope {
  constructor(
    private readonly scopes: ReadScopeService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /** 403 `scope_denied` on a graph-wide route for a caller that may not see the whole graph. */
  assertGraphWide(auth: AuthContext): Promise<void> {
    return this.scopes.assertGraphWide(auth);
  }

  /** True when the caller sees every node (nearly every request): the checks below would pass without a read. */
  seesAll(auth: AuthContext): boolean {
    return this.scopes.seesAll(auth);
  }

  /** 404 `not_found` for a node the caller may not see. */
  async assertNode(auth: AuthContext, uid: string): Promise<void> {
    if (!(await this.scopes.of(auth)).allows(uid)) throw Errors.notFound(`node ${uid} not found`, { uid });
  }

  /** 404 `not_found` (naming the field) for the first node a write refers to outside the caller's grants. */
  async assertRefs(auth: AuthContext, refs: { field: string; uid: unknown }[]): Promise<void> {
    const scope = await this.scopes.of(auth); // once per request: resolving grants reads the graph
    scope.assertVisible(refs.filter((r): r is { field: string; uid: string } => typeof r.uid === 'string'));
  }

  /** `/batch`: an edge endpoint named by uid (not by ref) outside the grants is 404 naming `edges[i].field`. */
  async assertBatchEndpoints(auth: AuthContext, edges: unknown): Promise<void> {
    if (!Array.isArray(edges)) return;
    const scope = await this.scopes.of(auth);
    if (!scope.restricted) return;
    edges.forEach((e: Record<string, unknown> | null, i) => {
      for (const field of ['from_uid', 'to_uid']) {
        const uid = e?.[field];
        if (typeof uid !== 'string' || scope.allows(uid)) continue;
        const err = Errors.refNotFound(field, uid);
        throw new DomainError(err.status, err.code, `edges[${i}]: ${err.message}`, { ...err.context, index: `edges[${i}].${field}` });
      }
    });
  }

  /** 404 `not_found` for an edge unless both endpoints are visible (an unknown edge is left to the handler). */
  async assertEdge(auth: AuthContext, uid: string): Promise<void> {
    const scope = await this.scopes.of(auth);
    if (!scope.restricted) return;
    const e = await this.graph.getEdge(auth.org_id, uid);
    if (e && !scope.allowsEdge(e)) throw Errors.notFound(`edge ${uid} not found`, { uid });
  }

  /** The filter narrowed to the visible nodes. */
  async nodeFilter(auth: AuthContext, filter: NodeFilter): Promise<NodeFilter> {
    return (await this.scopes.of(auth)).nodeFilter(filter);
  }

  /** The uids the caller may see, in input order. */
  async visibleUids(auth: AuthContext, uids: string[]): Promise<string[]> {
    const scope = await this.scopes.of(auth);
    if (!scope.restricted) return uids;
    return uids.filter((u) => scope.allows(u));
  }

  /** Runs a write; a refusal naming a Series the caller may not see loses that uid (concealHiddenHolder). */
  async concealing<T>(auth: AuthContext, write: () => Promise<T>): Promise<T> {
    const scope = await this.scopes.of(auth);
    if (!scope.restricted) return write();
    try {
      return await write();
    } catch (err) {
      throw scope.conceal(err);
    }
  }

  /** Which edges a count in a response may include: those the caller may see (all, when unrestricted). */
  async edgeCounter(auth: AuthContext): Promise<(e: EdgeRecord) => boolean> {
    const scope = await this.scopes.of(auth);
    if (!scope.restricted) return () => true;
    return (e) => scope.allowsEdge(e);
  }

  /** The edges whose endpoints are both visible. */
  async edges(auth: AuthContext, edges: EdgeRecord[]): Promise<EdgeRecord[]> {
    const scope = await this.scopes.of(auth);
    if (!scope.restricted) return edges;
    return edges.filter((e) => scope.allowsEdge(e));
  }
}

