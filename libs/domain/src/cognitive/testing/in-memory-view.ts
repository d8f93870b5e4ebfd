import { DomainError } from '../../errors';
import { decideCreateEdge, decideCreateNode, triggerEdgeProps } from '../../graph';
import { EdgeRecord, NodeRecord } from '../../records';
import { Body } from '../../validation';
import { EndpointDef, resolveAction } from '../action';
import { CognitiveView, EdgeQuery, NodeQuery, NodeQueryOrder, PointQuery, StoredPoint } from '../cognitive-view';
import { ActionContext, Decision } from '../decision';
import { PendingEvent } from '../../events';

/**
 * A graph held in memory for decider tests: "given" these nodes and edges, a decider reads
 * them through the view; `apply` folds a decision's changes in so a test can go on.
 */
export class InMemoryView implements CognitiveView {
  readonly nodesByUid = new Map<string, NodeRecord>();
  readonly edgesByUid = new Map<string, EdgeRecord>();
  readonly points = new Map<string, Map<number, StoredPoint>>();

  async node(uid: string) {
    return this.nodesByUid.get(uid) ?? null;
  }

  async findNodes(q: NodeQuery, page: { limit: number; offset: number }, order: NodeQueryOrder = 'created_desc') {
    const match = [...this.nodesByUid.values()].filter(
      (n) =>
        n.tombstone_at === null &&
        q.node_types.includes(n.node_type) &&
        (!q.uids || q.uids.includes(n.uid)) &&
        Object.entries(q.props_equals ?? {}).every(([k, v]) => (n.props[k] ?? null) === v) &&
        Object.entries(q.props_in ?? {}).every(([k, vs]) => vs.includes(n.props[k] ?? null)),
    );
    const key = (n: NodeRecord) => (order === 'created_desc' ? [n.created_at] : order === 'updated_desc' ? [n.updated_at] : [n.salience, n.updated_at]);
    match.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i] - ka[i];
      return a.uid < b.uid ? -1 : 1;
    });
    const items = match.slice(page.offset, page.offset + page.limit);
    return { items, has_more: match.length > page.offset + items.length };
  }

  async edges(q: EdgeQuery) {
    return [...this.edgesByUid.values()].filter(
      (e) =>
        e.tombstone_at === null &&
        (q.from_uid === undefined || e.from_uid === q.from_uid) &&
        (q.to_uid === undefined || e.to_uid === q.to_uid) &&
        (q.touching === undefined || e.from_uid === q.touching || e.to_uid === q.touching) &&
        (!q.edge_types || q.edge_types.includes(e.edge_type)),
    );
  }

  async seriesPoints(seriesUid: string, q: PointQuery) {
    const all = [...(this.points.get(seriesUid)?.values() ?? [])]
      .filter((p) => (q.start === undefined || p.ts >= q.start) && (q.end === undefined || p.ts < q.end))
      .sort((a, b) => (q.order === 'desc' ? b.ts - a.ts : a.ts - b.ts));
    const items = all.slice(q.offset, q.offset + q.limit);
    return { items, has_more: all.length > q.offset + items.length };
  }

  async seriesPointCount(seriesUid: string) {
    return this.points.get(seriesUid)?.size ?? 0;
  }

  apply(changes: readonly PendingEvent[]): void {
    for (const c of changes) {
      switch (c.type) {
        case 'NodeCreated':
        case 'NodeUpdated':
        case 'NodeTombstoned':
        case 'NodeRestored':
          this.nodesByUid.set(c.data.node.uid, c.data.node);
          break;
        case 'NodeTouched': {
          const n = this.nodesByUid.get(c.data.uid)!;
          this.nodesByUid.set(c.data.uid, { ...n, props: { ...n.props, ...c.data.props } as NodeRecord['props'] });
          break;
        }
        case 'EdgeCreated':
        case 'EdgeUpdated':
        case 'EdgeTombstoned':
        case 'EdgeRestored':
          this.edgesByUid.set(c.data.edge.uid, c.data.edge);
          break;
        case 'SeriesPointsAppended': {
          const m = this.points.get(c.data.series_uid) ?? new Map<number, StoredPoint>();
          for (const p of c.data.points) m.set(p.ts, p);
          this.points.set(c.data.series_uid, m);
          break;
        }
        default:
          // aliases and every other event: not read by any cognitive decider
          break;
      }
    }
  }
}

/** Deterministic time and uids (`uid-1`, `uid-2`…); `principal_id` is `user-1`. */
export function testContext(opts: { now?: number; agent_id?: string | null } = {}): ActionContext & { tick(secs?: number): void } {
  let n = 0;
  const ctx = {
    org: 'org-1',
    now: opts.now ?? 1_700_000_000,
    agent_id: opts.agent_id ?? null,
    principal_id: 'user-1',
    uuid: () => `uid-${++n}`,
    tick(secs = 1) {
      ctx.now += secs;
    },
  };
  return ctx;
}

let seeded = 0;
/** Given: a live node of a type (props validated as on create). */
export function givenNode(view: InMemoryView, type: string, label: string, props: Body = {}, at = 1_600_000_000 + seeded): NodeRecord {
  const node = decideCreateNode({ label, props }, `given-${++seeded}`, { now: at, agent_id: null, principal_id: 'user-0' }, { forcedType: type });
  view.nodesByUid.set(node.uid, node);
  return node;
}

/** Given: a live edge. */
export function givenEdge(view: InMemoryView, from: NodeRecord, to: NodeRecord, type: string, props: Body = {}): EdgeRecord {
  const e = decideCreateEdge({ edge_type: type, props: triggerEdgeProps(type, props) }, from, to, `given-edge-${++seeded}`, {
    now: 1_600_000_000,
    agent_id: null,
    principal_id: 'user-0',
  });
  view.edgesByUid.set(e.uid, e);
  return e;
}

export function tombstoned(view: InMemoryView, node: NodeRecord): NodeRecord {
  const t = { ...node, tombstone_at: 1_650_000_000, version: node.version + 1 };
  view.nodesByUid.set(t.uid, t);
  return t;
}

/** When: one call of an endpoint. Then: the decision (call `view.apply` to go on). */
export async function when(endpoint: EndpointDef, body: Body, view: InMemoryView, ctx: ActionContext): Promise<Decision> {
  const { name, def } = resolveAction(endpoint, body);
  return def.decide(body, view, ctx, name);
}

/** When + apply: for set-ups made of earlier calls. */
export async function given(endpoint: EndpointDef, body: Body, view: InMemoryView, ctx: ActionContext): Promise<Decision> {
  const d = await when(endpoint, body, view, ctx);
  view.apply(d.changes);
  return d;
}

/** The error a call fails with, for `expect(...).toMatchObject({status, code, ...})`. */
export async function failure(p: Promise<unknown>): Promise<DomainError & Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return Object.assign(e, e.context) as DomainError & Record<string, unknown>;
    throw e;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export function createdOf(d: Decision, type?: string): NodeRecord[] {
  return d.changes.flatMap((c) => (c.type === 'NodeCreated' && (!type || c.data.node.node_type === type) ? [c.data.node] : []));
}

export function edgesOf(d: Decision, type?: string): EdgeRecord[] {
  return d.changes.flatMap((c) => (c.type === 'EdgeCreated' && (!type || c.data.edge.edge_type === type) ? [c.data.edge] : []));
}
