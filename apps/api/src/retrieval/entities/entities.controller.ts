import { Body as ReqBody, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { AliasItem, AliasResponse, MergeResponse, ResolveResponse } from './entities.response';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite } from '@strata/auth/request-context.decorator';
import { Errors } from '@strata/domain/errors';
import { readNodeTypes, readQueryText } from '@strata/domain/retrieval';
import { Body, assertObjectBody, coerceQuery, readNumber, readUid } from '@strata/domain/validation';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { pathUid } from '../../platform/http/path-params';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { readAliasScore, readAliasText } from './alias-ops';
import { EntityResolutionService } from './entity-resolution.service';
import { MergeEntitiesCommand } from './merge-entities.handler';
import { SetAliasCommand, SetAliasResult } from './set-alias.handler';

/** Aliases, resolution and entity merge (REFERENCE §8.4, §8.5). */
@ApiTags('retrieval: aliases and entities')
@Controller()
export class EntitiesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly resolution: EntityResolutionService,
    private readonly scopes: ReadScopeService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  @Post('alias')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Add an alias for entity resolution (201), or replace the score of an existing pair (200)' })
  @Answers(201, 'a new alias', AliasResponse)
  @Answers(200, 'the pair existed: its score replaced', AliasResponse)
  async alias(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<AliasResponse> {
    assertCanWrite(auth);
    const body = assertObjectBody(raw);
    const { text, norm } = readAliasText(body);
    const canonical = readUid(body, 'canonical_uid', { required: true })!;
    const score = readAliasScore(body);
    const r: SetAliasResult = await this.commands.execute(
      new SetAliasCommand(commandContext(auth, rid, body), canonical, text, norm, score, await this.scopes.of(auth)),
    );
    reply.status(r.created ? 201 : 200);
    return { text: r.text, canonical_uid: r.canonical_uid, score: r.score, created_at: r.created_at };
  }

  @Get('aliases/:uid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "A node's aliases, highest score first" })
  @Answers(200, 'the node’s aliases, score descending', [AliasItem])
  async aliases(@Auth() auth: AuthContext, @Param('uid') uid: string): Promise<AliasItem[]> {
    pathUid(uid);
    const scope = await this.scopes.of(auth);
    const node = await this.graph.getNode(auth.org_id, uid);
    if (!node || !scope.allows(uid)) throw Errors.notFound(`node ${uid} not found`, { uid });
    return (await this.graph.aliasesOf(auth.org_id, uid)).map((a) => ({ text: a.text, score: a.score, created_at: a.created_at }));
  }

  @Get('resolve')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Resolve text to entities: exact (normalised) match and fuzzy (trigram similarity, 0..1)' })
  @Answers(200, 'the exact match (or null) and the fuzzy ones', ResolveResponse)
  async resolve(@Auth() auth: AuthContext, @Query() query: Body): Promise<ResolveResponse> {
    const q = coerceQuery(query, ['limit', 'min_score']);
    const text = readQueryText(q, 'text')!;
    const limit = Math.min(readNumber(q, 'limit', { integer: true, min: 1 }) ?? 5, 50);
    const min_score = readNumber(q, 'min_score', { min: 0, max: 1 }) ?? 0.3;
    const types = readNodeTypes(q) ?? null;
    const scope = await this.scopes.of(auth);
    const exact = await this.resolution.exact(scope, text, types);
    const fuzzy = await this.resolution.fuzzy(scope, text, { limit, min_score, types, exclude: exact?.uid });
    return { text, exact, fuzzy };
  }

  @Post('entities/merge')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Merge a duplicate into a kept node: edges retargeted, aliases moved, duplicate tombstoned (one transaction)' })
  @Answers(200, 'what the merge moved', MergeResponse)
  async merge(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<MergeResponse> {
    assertCanWrite(auth);
    const body = assertObjectBody(raw);
    return this.commands.execute(new MergeEntitiesCommand(commandContext(auth, rid, body), body, await this.scopes.of(auth)));
  }
}
