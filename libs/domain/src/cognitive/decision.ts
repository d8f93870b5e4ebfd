import { decideCreateEdge, GraphChanges, NewNodeAlias, triggerEdgeProps, WriteContext } from '../graph';
import { EdgeRecord, NodeRecord } from '../records';
import { PendingEvent, SeriesPoint } from '../events';

/** What a cognitive decider needs besides its input: its organization, time, attribution and fresh uids. */
export interface ActionContext extends WriteContext {
  /** the organization written to: the streams of the events a decision returns */
  org: string;
  uuid(): string;
  /** the node a create is about to check its state guards for (policies judge it before them) */
  wouldCreate?(node: NodeRecord): void;
  /**
   * Whether a node lives in exactly the Spaces this request places what it creates in
   * (REFERENCE §13.1: an upsert, like find-or-create, matches only such nodes); absent: every node does
   */
  inPlacement?(uid: string): Promise<boolean>;
}

/** The outcome of one cognitive call: HTTP status, response body, and the changes to commit. */
export interface Decision {
  status: 200 | 201;
  /** a JSON object, or a bare array for NodeList reads */
  body: unknown;
  /** the typed events to append, in order */
  changes: PendingEvent[];
  /** keys of the request the call did not use, when the body cannot carry them (a bare array) */
  warnings?: { field: string; reason: string }[];
}

export interface EdgeSummary {
  uid: string;
  edge_type: string;
  from_uid: string;
  to_uid: string;
}

/**
 * Accumulates a decision's changes in order and remembers the edges it creates, so every
 * result shape can list them (REFERENCE §4.0 CreateResult / TransitionResult).
 */
export class ChangeSet {
  readonly changes: PendingEvent[] = [];
  private readonly created: EdgeRecord[] = [];

  constructor(readonly ctx: ActionContext) {}

  createNode(node: NodeRecord): NodeRecord {
    this.changes.push(GraphChanges.nodeCreated(this.ctx.org, node));
    return node;
  }

  updateNode(node: NodeRecord, reason: string | null = null): NodeRecord {
    this.changes.push(GraphChanges.nodeChanged(this.ctx.org, 'NodeUpdated', node, reason));
    return node;
  }

  tombstoneNode(node: NodeRecord, reason: string | null): NodeRecord {
    this.changes.push(GraphChanges.nodeChanged(this.ctx.org, 'NodeTombstoned', node, reason));
    return node;
  }

  /** A server-maintained counter or cache field: not versioned, moves updated_at only. */
  touch(uid: string, props: Record<string, unknown>): void {
    this.changes.push(GraphChanges.nodeTouched(this.ctx.org, uid, props, this.ctx.now));
  }

  /** A trigger edge: weight 0.5, confidence 1.0, default props plus the named ones. */
  edge(from: NodeRecord, to: NodeRecord, edgeType: string, props: Record<string, unknown> = {}): EdgeRecord {
    const e = decideCreateEdge({ edge_type: edgeType, props: triggerEdgeProps(edgeType, props) }, from, to, this.ctx.uuid(), this.ctx);
    this.changes.push(GraphChanges.edgeCreated(this.ctx.org, e));
    this.created.push(e);
    return e;
  }

  tombstoneEdge(edge: EdgeRecord, reason: string | null): EdgeRecord {
    this.changes.push(GraphChanges.edgeChanged(this.ctx.org, 'EdgeTombstoned', edge, reason));
    return edge;
  }

  /** An alias of a node this decision created (§2.8 `canonical_name`). */
  setAlias(alias: NewNodeAlias): void {
    this.changes.push(GraphChanges.aliasSet(this.ctx.org, alias, this.ctx.now));
  }

  appendPoints(seriesUid: string, points: SeriesPoint[]): void {
    if (points.length) this.changes.push(GraphChanges.seriesPointsAppended(this.ctx.org, seriesUid, points));
  }

  get edgesCreated(): readonly EdgeRecord[] {
    return this.created;
  }

  edgeSummaries(): EdgeSummary[] {
    return this.created.map((e) => ({ uid: e.uid, edge_type: e.edge_type, from_uid: e.from_uid, to_uid: e.to_uid }));
  }

  /** 201 CreateResult plus the action's extras. */
  createResult(node: NodeRecord, action: string, extras: Record<string, unknown> = {}): Decision {
    return this.respond(201, {
      uid: node.uid,
      action,
      node_type: node.node_type,
      layer: node.layer,
      label: node.label,
      version: node.version,
      edges_created: this.created.length,
      edges: this.edgeSummaries(),
      ...extras,
    });
  }

  /** 200 TransitionResult (`version` is the node's new version) plus extras. */
  transitionResult(node: NodeRecord, action: string, extras: Record<string, unknown> = {}): Decision {
    const status = node.props.status;
    return this.respond(200, {
      uid: node.uid,
      action,
      ...(typeof status === 'string' ? { status } : {}),
      version: node.version,
      edges_created: this.created.length,
      edges: this.edgeSummaries(),
      ...extras,
    });
  }

  respond(status: 200 | 201, body: Record<string, unknown>): Decision {
    return { status, body, changes: this.changes };
  }
}

/** A read: no changes. */
export function readResult(body: unknown): Decision {
  return { status: 200, body, changes: [] };
}
