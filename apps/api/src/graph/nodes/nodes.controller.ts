import { Body as ReqBody, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { NodeVersionRecord } from '../../platform/http/responses/graph-records';
import { DeleteNodesResponse, NodeBatchResponse } from './node.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly, WritesInSpaces } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite, assertCanWriteInSpaces, stateOf } from '@strata/auth/request-context.decorator';
import { readHistoryPage } from '@strata/domain/graph';
import { Body, assertObjectBody, coerceQuery, readString, readUids } from '@strata/domain/validation';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { pathPositiveInt, pathUid } from '../../platform/http/path-params';
import { FastRoutes } from '../../platform/http/fast-routes';
import { VersionHistoryService } from '@strata/platform/history/version-history.service';
import { GraphScope } from '../scope/graph-scope';
import { CreateNodeCommand, DeleteNodeCommand, UpdateNodeCommand } from './node-commands';
import { DeleteNodesCommand } from './delete-nodes.handler';
import { NodeQueries, readNodeListFilter } from './node-queries.service';

const LIST_NUMERIC = ['limit', 'offset', 'created_after', 'created_before'];

/**
 * Node routes; `GET /node/{uid}` is served on the fast lane by NodeReadRoute, and `POST /node`
 * (declared here, for its OpenAPI entry and auth tag) runs `create` on the fast lane too.
 */
@ApiTags('graph: nodes')
@Controller()
export class NodesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: NodeQueries,
    private readonly history: VersionHistoryService,
    private readonly scope: GraphScope,
    fast: FastRoutes,
  ) {
    fast.takeOver({
      method: 'POST',
      url: '/node',
      controller: NodesController,
      methodName: 'create',
      status: 201,
      handle: (req, reply, auth) => this.create(auth, stateOf(req).request_id, req.body).then((node) => void reply.send(node)),
    });
  }

  @Post('node')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Create a node with typed props (201 node record)' })
  async create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown) {
    assertCanWriteInSpaces(auth);
    const body = assertObjectBody(raw);
    return this.scope.concealing(auth, () => this.commands.execute(new CreateNodeCommand(commandContext(auth, rid, body), body)));
  }

  @Patch('node/:uid')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Update fields and/or props (shallow merge); optional expected_version' })
  async update(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @ReqBody() raw: unknown) {
    assertCanWriteInSpaces(auth);
    const body = assertObjectBody(raw);
    await this.scope.assertNode(auth, pathUid(uid));
    return this.scope.concealing(auth, () => this.commands.execute(new UpdateNodeCommand(commandContext(auth, rid, body), uid, body)));
  }

  @Delete('node/:uid')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Tombstone a node and every live edge touching it' })
  async remove(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @Query() q: Body) {
    assertCanWriteInSpaces(auth);
    const reason = readString(q, 'reason', { max: 1000 }) ?? null;
    await this.scope.assertNode(auth, pathUid(uid));
    return this.commands.execute(new DeleteNodeCommand(commandContext(auth, rid), uid, reason, await this.scope.edgeCounter(auth)));
  }

  @Get('node/:uid/history')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The versions of a node, oldest first: from_version (1), at most limit (100, ≤ 1000) and about 16 MB per page' })
  @Answers(200, 'version records, version ascending', [NodeVersionRecord])
  async nodeHistory(@Auth() auth: AuthContext, @Param('uid') uid: string, @Query() q: Body): Promise<NodeVersionRecord[]> {
    const page = readHistoryPage(coerceQuery(q, ['from_version', 'limit']));
    await this.scope.assertNode(auth, pathUid(uid));
    return this.history.nodeHistory(auth.org_id, uid, page);
  }

  @Get('node/:uid/history/:version')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The node as of one version' })
  async snapshot(@Auth() auth: AuthContext, @Param('uid') uid: string, @Param('version') version: string) {
    const v = pathPositiveInt(version, 'version');
    await this.scope.assertNode(auth, pathUid(uid));
    return this.history.nodeSnapshot(auth.org_id, uid, v);
  }

  @Get('nodes')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Filter and page nodes, newest first' })
  async list(@Auth() auth: AuthContext, @Query() query: Body) {
    const q = coerceQuery(query, LIST_NUMERIC, ['include_tombstoned']);
    return this.queries.list(auth.org_id, await this.scope.nodeFilter(auth, readNodeListFilter(q)), q);
  }

  @Get('agent/:agent_id/nodes')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Nodes created with this agent_id attribution' })
  async byAgent(@Auth() auth: AuthContext, @Param('agent_id') agentId: string, @Query() query: Body) {
    const q = coerceQuery(query, ['limit', 'offset'], ['include_tombstoned']);
    const filter = readNodeListFilter({ include_tombstoned: q.include_tombstoned });
    filter.agent_id = agentId;
    return this.queries.list(auth.org_id, await this.scope.nodeFilter(auth, filter), q);
  }

  @Post('nodes/batch')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Fetch up to 1000 nodes by uid, in input order' })
  @Answers(200, 'the nodes found, in input order, and the uids not found', NodeBatchResponse)
  async batch(@Auth() auth: AuthContext, @ReqBody() raw: unknown): Promise<NodeBatchResponse> {
    const body = assertObjectBody(raw);
    const uids = readUids(body, 'uids', { required: true, max: 1000 })!;
    const visible = new Set(await this.scope.visibleUids(auth, uids));
    const r = await this.queries.batch(auth.org_id, uids.filter((u) => visible.has(u)));
    return { nodes: r.nodes, missing: uids.filter((u) => !visible.has(u) || r.missing.includes(u)) };
  }

  @Post('nodes/delete')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Tombstone (or purge) the nodes matched by uids, agent_id and filter' })
  @Answers(200, 'what was matched, tombstoned or purged', DeleteNodesResponse)
  async deleteMany(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<DeleteNodesResponse> {
    assertCanWrite(auth);
    await this.scope.assertGraphWide(auth); // selects across the organization's graph
    const body = assertObjectBody(raw);
    return this.commands.execute(new DeleteNodesCommand(commandContext(auth, rid), body));
  }
}
