import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers, RecordWith } from '../../platform/http/responses/response-fields';
import { EntityAliasResponse, EntityCreationFields, EntityFuzzyResolved, EntityMerged, EntityRelated, EntityResolved, EntityUnresolved } from './entities.response';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWriteInSpaces } from '@strata/auth/request-context.decorator';
import { Errors } from '@strata/domain/errors';
import { readNodeTypes } from '@strata/domain/retrieval';
import { trackBodyUse, withWarnings } from '@strata/domain/cognitive';
import { assertObjectBody, Body, readNumber, readUid } from '@strata/domain/validation';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { readAliasScore, readAliasText } from './alias-ops';
import { EntityResolutionService } from './entity-resolution.service';
import { FindOrCreateEntityCommand, FindOrCreateResult } from './find-or-create-entity.handler';
import { MergeEntitiesCommand } from './merge-entities.handler';
import { RelateEntitiesCommand } from './relate-entities.handler';
import { SetAliasCommand, SetAliasResult } from './set-alias.handler';

const ACTIONS = ['create', 'alias', 'resolve', 'fuzzy_resolve', 'merge', 'relate'] as const;
type Action = (typeof ACTIONS)[number];
const WRITES: ReadonlySet<Action> = new Set(['create', 'alias', 'merge', 'relate']);

/** `/reality/entity` (REFERENCE §4.2): create (find-or-create), alias, resolve, fuzzy_resolve, merge, relate. */
@ApiTags('cognitive: reality')
@Controller()
export class RealityEntityController {
  constructor(
    private readonly commands: CommandBus,
    private readonly resolution: EntityResolutionService,
    private readonly scopes: ReadScopeService,
  ) {}

  @Post('reality/entity')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Entities: create (find-or-create by alias then label), alias, resolve, fuzzy_resolve, merge, relate' })
  @Answers(201, 'create: a new entity (its node record with created:true); relate: the new edge', RecordWith('NodeRecord', EntityCreationFields), EntityRelated)
  @Answers(
    200,
    'create: the existing entity (created:false, matched_by); alias; resolve (a match or {uid:null}); fuzzy_resolve; merge',
    RecordWith('NodeRecord', EntityCreationFields),
    EntityAliasResponse,
    EntityResolved,
    EntityUnresolved,
    EntityFuzzyResolved,
    EntityMerged,
  )
  async entity(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const action = assertObjectBody(raw).action;
    // every key the action never reads is reported, not dropped (§2.8)
    const use = trackBodyUse(assertObjectBody(raw));
    const out = await this.run(auth, rid, use.body, reply);
    return withWarnings({ status: 200, body: out, changes: [] }, use.warnings('reality/entity', String(action), false)).body;
  }

  private async run(auth: AuthContext, rid: string, body: Body, reply: FastifyReply): Promise<unknown> {
    const action = body.action as Action;
    if (typeof action !== 'string' || !ACTIONS.includes(action)) throw Errors.unknownAction(body.action, ACTIONS);
    if (WRITES.has(action)) assertCanWriteInSpaces(auth);
    const ctx = () => commandContext(auth, rid, body);
    const scope = () => this.scopes.of(auth); // uids outside the caller's grants read as missing (§1.8)
    switch (action) {
      case 'create': {
        const r: FindOrCreateResult = await this.commands.execute(new FindOrCreateEntityCommand(ctx(), body, await scope()));
        reply.status(r.created ? 201 : 200);
        return r;
      }
      case 'alias': {
        const { text, norm } = readAliasText(body);
        const canonical = readUid(body, 'canonical_uid', { required: true })!;
        const score = readAliasScore(body);
        const r: SetAliasResult = await this.commands.execute(new SetAliasCommand(ctx(), canonical, text, norm, score, await scope()));
        reply.status(200);
        return { status: 'ok', text: r.text, canonical_uid: r.canonical_uid, alias_score: r.score };
      }
      case 'resolve': {
        const { text } = readAliasText(body);
        const types = readNodeTypes(body) ?? null;
        reply.status(200);
        return (await this.resolution.exact(await scope(), text, types)) ?? { uid: null };
      }
      case 'fuzzy_resolve': {
        const { text } = readAliasText(body);
        const limit = Math.min(readNumber(body, 'limit', { integer: true, min: 1 }) ?? 5, 50);
        const min_score = readNumber(body, 'min_score', { min: 0, max: 1 }) ?? 0.3;
        const types = readNodeTypes(body) ?? null;
        reply.status(200);
        return { matches: await this.resolution.fuzzy(await scope(), text, { limit, min_score, types }) };
      }
      case 'merge':
        reply.status(200);
        return this.commands.execute(new MergeEntitiesCommand(ctx(), body, await scope()));
      case 'relate':
        reply.status(201);
        return this.commands.execute(new RelateEntitiesCommand(ctx(), body, await scope()));
    }
  }
}

