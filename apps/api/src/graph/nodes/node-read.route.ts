import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { NodeReadViews } from '@strata/platform/read-views/node-read-views';
import { FastRoutes } from '../../platform/http/fast-routes';
import { pathUid } from '../../platform/http/path-params';
import { GraphScope } from '../scope/graph-scope';
import { NodeQueries } from './node-queries.service';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `GET /node/{uid}`: the most frequent read, served on the fast lane (platform/http/fast-routes.ts).
 * On the embedded store the record is sent as the JSON text the read model keeps — no parse and
 * re-serialise; other stores answer through NodeQueries. Tombstoned nodes are returned too.
 */
@Injectable()
export class NodeReadRoute {
  constructor(
    fast: FastRoutes,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly queries: NodeQueries,
    private readonly scope: GraphScope,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly views: NodeReadViews,
  ) {
    fast.add({
      method: 'GET',
      url: '/node/:uid',
      auth: { tag: 'api_key_or_jwt', access: 'read' },
      doc: {
        path: '/node/{uid}',
        tag: 'graph: nodes',
        summary: 'Get a node (tombstoned nodes too)',
        parameters: [{ name: 'uid', in: 'path', required: true, schema: { type: 'string' } }],
      },
      handle: (req, reply, auth) => this.handle(req, reply, auth),
    });
  }

  /** Without a promise when the caller sees every node and the store answers at once: the common case. */
  private handle(req: FastifyRequest, reply: FastifyReply, auth: AuthContext): void | Promise<void> {
    const uid = pathUid((req.params as { uid: string }).uid);
    if (this.scope.seesAll(auth)) return this.send(reply, auth, uid);
    return this.scope.assertNode(auth, uid).then(() => this.send(reply, auth, uid));
  }

  private send(reply: FastifyReply, auth: AuthContext, uid: string): void | Promise<void> {
    if (this.graph.getNodeDocSync) {
      const doc = this.graph.getNodeDocSync(auth.org_id, uid);
      // a node of a type that can read otherwise than it is stored (NodeReadViews) is parsed; no other
      if (doc !== null && this.views.watches(doc)) {
        reply.send(this.views.at(auth.org_id, JSON.parse(doc) as NodeRecord, this.clock.now()));
        return;
      }
      if (doc !== null) {
        reply.header('content-type', JSON_TYPE).send(doc);
        return;
      }
    }
    // read views applied there; 404 not_found when missing
    return this.queries.get(auth.org_id, uid).then((node) => void reply.send(node));
  }
}
