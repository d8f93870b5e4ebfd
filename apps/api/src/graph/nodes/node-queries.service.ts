import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import { Body, readBoolean, readNumber, readPage, readString } from '@strata/domain/validation';
import { GRAPH_READ_MODEL, GraphReadModel, NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { assertLayer, readPrivacy } from '@strata/domain/graph';
import { readNodeTypes } from '@strata/domain/retrieval';
import { CLOCK, Clock } from '@strata/domain/time';
import { NodeReadViews } from '@strata/platform/read-views/node-read-views';

/**
 * Reads the node-list filters shared by GET /nodes and GET /agent/{id}/nodes. Type names and
 * privacy levels go through the readers of every other route, so a value they refuse is 400
 * invalid_field here too rather than a filter that silently matches nothing.
 */
export function readNodeListFilter(q: Body): NodeFilter {
  const f: NodeFilter = {};
  const layer = readString(q, 'layer');
  if (layer !== undefined) f.layer = assertLayer(layer);
  const types = readNodeTypes(q, 'type', ['node_type']);
  if (types !== undefined) f.node_types = types;
  const agent = readString(q, 'agent');
  if (agent !== undefined) f.agent_id = agent;
  const lc = readString(q, 'label_contains');
  if (lc !== undefined) f.label_contains = lc;
  const pl = readPrivacy(q);
  if (pl !== undefined) f.privacy_level = pl;
  const ca = readNumber(q, 'created_after');
  if (ca !== undefined) f.created_after = ca;
  const cb = readNumber(q, 'created_before');
  if (cb !== undefined) f.created_before = cb;
  f.include_tombstoned = readBoolean(q, 'include_tombstoned') ?? false;
  return f;
}

@Injectable()
export class NodeQueries {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly views: NodeReadViews,
  ) {}

  /** A node as served now (NodeReadViews: an Approval past its expiry reads expired before the sweep records it). */
  private served(org: string, n: NodeRecord, now = this.clock.now()): NodeRecord {
    return this.views.at(org, n, now);
  }

  async get(org: string, uid: string): Promise<NodeRecord> {
    const n = await this.graph.getNode(org, uid);
    if (!n) throw Errors.notFound(`node ${uid} not found`, { uid });
    return this.served(org, n);
  }

  async list(org: string, filter: NodeFilter, q: Body) {
    const page = readPage(q, { limit: 100, max: 1000 });
    const r = await this.graph.listNodes(org, filter, page, 'created_desc');
    const now = this.clock.now();
    return { items: r.items.map((n) => this.served(org, n, now)), has_more: r.has_more, limit: page.limit, offset: page.offset };
  }

  async batch(org: string, uids: string[]) {
    const found = await this.graph.getNodes(org, uids);
    const now = this.clock.now();
    return { nodes: uids.filter((u) => found.has(u)).map((u) => this.served(org, found.get(u)!, now)), missing: uids.filter((u) => !found.has(u)) };
  }
}
