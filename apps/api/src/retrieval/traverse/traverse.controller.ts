import { Body as ReqBody, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { reportingUnusedKeys } from '../../platform/http/unused-keys';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { ChainResponse, MultiSubgraphResponse, NeighborhoodResponse, PathResponse, SubgraphResponse, TopKPathsResponse } from './traversal.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { Errors } from '@strata/domain/errors';
import { readNodeTypes } from '@strata/domain/retrieval';
import {
  TRAVERSAL_LIMITS,
  TRAVERSE_ACTIONS,
  TraverseAction,
  readClampedCount,
  readDirection,
  readFollowRules,
  readTraversalRequest,
} from '@strata/domain/traversal';
import { Body, assertObjectBody, coerceQuery, present, readBoolean, readUids } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { TraversalService } from './traversal.service';

const NUMERIC = ['max_depth', 'depth', 'max_nodes', 'weight_threshold', 'k', 'max_hops', 'max_cost'];
const BOOLEANS = ['include_provenance'];

/** `POST /traverse` and the GET/POST shortcuts of REFERENCE §6.2. All read-only. */
@ApiTags('retrieval: traversal')
@Controller()
export class TraverseController {
  constructor(
    private readonly traversal: TraversalService,
    private readonly scopes: ReadScopeService,
  ) {}

  @Post('traverse')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Traverse: chain, neighborhood, path, subgraph, top_k_paths (cheapest paths, cost Σ −ln weight)' })
  @Answers(200, 'by action', ChainResponse, NeighborhoodResponse, PathResponse, SubgraphResponse, TopKPathsResponse)
  async traverse(@Auth() auth: AuthContext, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const scope = await this.scopes.of(auth);
    return reportingUnusedKeys(assertObjectBody(raw), 'traverse', reply, (body) => {
      const action = body.action;
      if (typeof action !== 'string' || !TRAVERSE_ACTIONS.includes(action as TraverseAction)) throw Errors.unknownAction(action, TRAVERSE_ACTIONS);
      return this.traversal.run(scope, readTraversalRequest(action as TraverseAction, body));
    });
  }

  @Get('chain/:uid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Reasoning chain from a node (default edge types: the reasoning set), start included' })
  @Answers(200, 'the chain, start included', ChainResponse)
  async chain(@Auth() auth: AuthContext, @Param('uid') uid: string, @Query() query: Body) {
    const q = coerceQuery(query, NUMERIC, BOOLEANS);
    return this.traversal.run(await this.scopes.of(auth), readTraversalRequest('chain', { ...q, start_uid: pathUid(uid) }));
  }

  @Get('neighborhood/:uid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Neighbourhood of a node within `depth` hops (default 2), start excluded' })
  @Answers(200, 'the neighbourhood, start excluded', NeighborhoodResponse)
  async neighborhood(@Auth() auth: AuthContext, @Param('uid') uid: string, @Query() query: Body) {
    const q = coerceQuery(query, NUMERIC, BOOLEANS);
    const body: Body = { ...q, start_uid: pathUid(uid) };
    const sentDepth = present(q, 'depth');
    if (sentDepth) body.max_depth = q.depth;
    try {
      return await this.traversal.run(await this.scopes.of(auth), readTraversalRequest('neighborhood', body));
    } catch (e) {
      throw sentDepth ? renameField(e, { max_depth: 'depth' }) : e;
    }
  }

  @Get('path')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Fewest-hop path from `from` to `to` (ties: lowest cost)' })
  @Answers(200, 'the path, or found:false', PathResponse)
  async path(@Auth() auth: AuthContext, @Query() query: Body) {
    const q = coerceQuery(query, NUMERIC, BOOLEANS);
    if (!present(q, 'from')) throw Errors.missingField('from');
    if (!present(q, 'to')) throw Errors.missingField('to');
    const body: Body = { ...q, start_uid: q.from, end_uid: q.to };
    try {
      return await this.traversal.run(await this.scopes.of(auth), readTraversalRequest('path', body));
    } catch (e) {
      throw renameField(e, { start_uid: 'from', end_uid: 'to' });
    }
  }

  @Post('subgraph')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Subgraph around 1–100 start nodes: reached nodes and the live edges among them' })
  @Answers(200, 'the reached nodes and the live edges among them', MultiSubgraphResponse)
  async subgraph(@Auth() auth: AuthContext, @ReqBody() raw: unknown): Promise<MultiSubgraphResponse> {
    const body = assertObjectBody(raw);
    const start_uids = readUids(body, 'start_uids', { required: true, nonEmpty: true, max: 100 })!;
    const max_depth = readClampedCount(body, 'max_depth', 2, TRAVERSAL_LIMITS.max_depth);
    const direction = readDirection(body);
    const rules = readFollowRules(body);
    const max_nodes = readClampedCount(body, 'max_nodes', TRAVERSAL_LIMITS.default_max_nodes, TRAVERSAL_LIMITS.max_nodes);
    const node_types = readNodeTypes(body);
    const include_provenance = readBoolean(body, 'include_provenance') ?? false;
    const scope = await this.scopes.of(auth);
    for (const [i, u] of start_uids.entries()) await this.scopes.liveVisibleNode(scope, u, `start_uids[${i}]`);
    const r = await this.traversal.subgraph(scope, { start_uids, max_depth, direction, rules, max_nodes, node_types, include_provenance });
    return { start_uids, nodes: r.nodes, edges: r.edges, truncated: r.truncated };
  }
}

/** GET /path names its parameters `from` and `to`, GET /neighborhood `depth`: errors must name them too. */
function renameField(e: unknown, names: Record<string, string>): unknown {
  const ctx = (e as { context?: Record<string, unknown> }).context;
  if (ctx && typeof ctx.field === 'string' && names[ctx.field]) {
    const from = ctx.field;
    ctx.field = names[from];
    (e as Error).message = (e as Error).message.split(from).join(names[from]);
  }
  return e;
}
