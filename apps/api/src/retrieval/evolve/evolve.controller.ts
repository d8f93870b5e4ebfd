import { Body as ReqBody, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { reportingUnusedKeys } from '../../platform/http/unused-keys';
import { DecayResponse, NodeVersionRecord } from '../../platform/http/responses/graph-records';
import { EvolveEdgeResponse, EvolveRestoreResponse, EvolveTombstoneResponse } from './evolve.response';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWriteInSpaces } from '@strata/auth/request-context.decorator';
import { Errors } from '@strata/domain/errors';
import { assertObjectBody, Body, readNumber, readUid } from '@strata/domain/validation';
import { DecayCommand } from '@strata/maintenance/decay.handler';
import { VersionHistoryService } from '@strata/platform/history/version-history.service';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { readHistoryPage } from '@strata/domain/graph';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { EVOLVE_ACTIONS, EVOLVE_READS, EvolveAction, EvolveWriteAction } from './evolve-actions';
import { DecayNodeCommand } from './evolve-decay.handler';
import { EvolveCommand } from './evolve.handler';

/** `POST /evolve` (REFERENCE §7.1): update, tombstone(_cascade), restore, decay, history, snapshot, edge tombstone/restore. */
@ApiTags('cognitive: evolve')
@Controller()
export class EvolveController {
  constructor(
    private readonly commands: CommandBus,
    private readonly history: VersionHistoryService,
    private readonly scopes: ReadScopeService,
  ) {}

  @Post('evolve')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Evolve nodes and edges: update, tombstone, tombstone_cascade, restore, decay, history, snapshot, tombstone_edge, restore_edge' })
  @Answers(
    200,
    'by action: the node record (update, snapshot), a tombstone, restore or edge result, decay counts, version records (history)',
    'NodeRecord',
    EvolveTombstoneResponse,
    EvolveRestoreResponse,
    EvolveEdgeResponse,
    DecayResponse,
    [NodeVersionRecord],
  )
  async evolve(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return reportingUnusedKeys(assertObjectBody(raw), 'evolve', reply, (body) => this.run(auth, rid, body));
  }

  private async run(auth: AuthContext, rid: string, body: Body): Promise<unknown> {
    const action = body.action as EvolveAction;
    if (typeof action !== 'string' || !EVOLVE_ACTIONS.includes(action)) throw Errors.unknownAction(body.action, EVOLVE_ACTIONS);
    if (!EVOLVE_READS.has(action)) assertCanWriteInSpaces(auth);
    const scope = await this.scopes.of(auth);

    if (action === 'decay') {
      const uid = readUid(body, 'uid');
      if (uid === undefined) {
        // the whole graph, exactly like POST /decay: refused to any caller some nodes are hidden from
        await this.scopes.assertGraphWide(auth);
        return this.commands.execute(new DecayCommand(commandContext(auth, rid), body));
      }
      return this.commands.execute(new DecayNodeCommand(commandContext(auth, rid), uid, body, scope));
    }
    const uid = readUid(body, 'uid', { required: true })!;
    if (action === 'history' || action === 'snapshot') {
      if (!scope.allows(uid)) throw Errors.notFound(`node ${uid} not found`, { uid });
      if (action === 'history') return this.history.nodeHistory(auth.org_id, uid, readHistoryPage(body));
      const version = readNumber(body, 'version', { required: true, integer: true, min: 1 })!;
      return this.history.nodeSnapshot(auth.org_id, uid, version);
    }
    try {
      return await this.commands.execute(new EvolveCommand(commandContext(auth, rid, body), action as EvolveWriteAction, uid, body, scope));
    } catch (err) {
      throw scope.conceal(err); // as on POST/PATCH /node
    }
  }
}
