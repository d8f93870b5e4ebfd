import { Body as ReqBody, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { EdgeVersionRecord } from '../../platform/http/responses/graph-records';
import { DeletedEdgeResponse } from './edge.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly, WritesInSpaces } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite, assertCanWriteInSpaces } from '@strata/auth/request-context.decorator';
import { canonicalEdgeTypeName } from '@strata/domain/catalogue';
import { Errors } from '@strata/domain/errors';
import { readHistoryPage } from '@strata/domain/graph';
import { Body, assertObjectBody, coerceQuery, readBoolean, readString, readStringArray, readUid, readUids } from '@strata/domain/validation';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { pathUid } from '../../platform/http/path-params';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { VersionHistoryService } from '@strata/platform/history/version-history.service';
import { GraphScope } from '../scope/graph-scope';
import { CreateEdgeCommand, DeleteEdgeCommand, UpdateEdgeCommand } from './edge-commands';

/** An edge-type filter: every spelling of a type matches it (REFERENCE §3.2). */
function edgeTypeFilter(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      if (!/^[A-Za-z][A-Za-z0-9_ -]{0,99}$/.test(s)) throw Errors.invalidField('edge_type', `invalid edge type name '${s}'`);
      return canonicalEdgeTypeName(s);
    });
}

@ApiTags('graph: edges')
@Controller()
export class EdgesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly history: VersionHistoryService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly scope: GraphScope,
  ) {}

  @Post('link')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Add a typed edge with default props (201 edge record)' })
  async link(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown) {
    assertCanWriteInSpaces(auth);
    const body = assertObjectBody(raw);
    await this.assertEndpoints(auth, body);
    return this.commands.execute(new CreateEdgeCommand(commandContext(auth, rid, body), body, 'link'));
  }

  @Post('edge')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Add an edge with full EdgeProps (201 edge record)' })
  async edge(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown) {
    assertCanWriteInSpaces(auth);
    const body = assertObjectBody(raw);
    await this.assertEndpoints(auth, body);
    return this.commands.execute(new CreateEdgeCommand(commandContext(auth, rid, body), body, 'edge'));
  }

  @Patch('edge/:uid')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Update weight, confidence and/or props; type and endpoints are immutable' })
  async update(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @ReqBody() raw: unknown) {
    assertCanWriteInSpaces(auth);
    const body = assertObjectBody(raw);
    await this.scope.assertEdge(auth, pathUid(uid));
    return this.commands.execute(new UpdateEdgeCommand(commandContext(auth, rid, body), uid, body));
  }

  @Delete('edge/:uid')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Tombstone one edge (idempotent)' })
  @Answers(200, 'tombstoned (or already was)', DeletedEdgeResponse)
  async remove(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @Query() q: Body): Promise<DeletedEdgeResponse> {
    assertCanWriteInSpaces(auth);
    const reason = readString(q, 'reason', { max: 1000 }) ?? null;
    await this.scope.assertEdge(auth, pathUid(uid));
    return this.commands.execute(new DeleteEdgeCommand(commandContext(auth, rid), uid, reason));
  }

  @Get('edge/:uid/history')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The versions of an edge (tombstoned edges too), oldest first: from_version (1), at most limit (100, ≤ 1000)' })
  @Answers(200, 'version records, version ascending', [EdgeVersionRecord])
  async edgeHistory(@Auth() auth: AuthContext, @Param('uid') uid: string, @Query() q: Body): Promise<EdgeVersionRecord[]> {
    const page = readHistoryPage(coerceQuery(q, ['from_version', 'limit']));
    await this.scope.assertEdge(auth, pathUid(uid));
    return this.history.edgeHistory(auth.org_id, uid, page);
  }

  @Get('edges')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Edges from and/or to a node, oldest first' })
  async list(@Auth() auth: AuthContext, @Query() query: Body) {
    const q = coerceQuery(query, [], ['include_tombstoned']);
    const from = readUid(q, 'from_uid');
    const to = readUid(q, 'to_uid');
    if (from === undefined && to === undefined) throw Errors.missingField('from_uid', 'from_uid or to_uid is required');
    const edges = await this.graph.listEdges(auth.org_id, {
      from_uid: from,
      to_uid: to,
      edge_types: edgeTypeFilter(readString(q, 'edge_type')),
      include_tombstoned: readBoolean(q, 'include_tombstoned') ?? false,
    });
    return this.scope.edges(auth, edges);
  }

  @Get('edge/between')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Live edges from one node to another (directed)' })
  async between(@Auth() auth: AuthContext, @Query() q: Body) {
    const from = readUid(q, 'from_uid', { required: true });
    const to = readUid(q, 'to_uid', { required: true });
    return this.scope.edges(auth, await this.graph.listEdges(auth.org_id, { from_uid: from, to_uid: to, edge_types: edgeTypeFilter(readString(q, 'edge_type')) }));
  }

  @Post('edges/batch')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Live edges whose both endpoints are in the given set of node uids' })
  @Answers(200, 'live edges among the given nodes', ['EdgeRecord'])
  async batch(@Auth() auth: AuthContext, @ReqBody() raw: unknown) {
    const body = assertObjectBody(raw);
    const uids = readUids(body, 'uids', { required: true, max: 1000 })!;
    const types = readStringArray(body, 'edge_types', { single: true });
    return this.scope.edges(auth, await this.graph.listEdges(auth.org_id, { among: uids, edge_types: types ? edgeTypeFilter(types.join(',')) : undefined }));
  }

  /** Endpoints outside the caller's grants answer like missing ones (404 naming the field). */
  private async assertEndpoints(auth: AuthContext, body: Body): Promise<void> {
    await this.scope.assertRefs(auth, [
      { field: 'from_uid', uid: body.from_uid },
      { field: 'to_uid', uid: body.to_uid },
    ]);
  }
}
