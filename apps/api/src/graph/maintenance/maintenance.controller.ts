import { Body as ReqBody, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { DecayResponse } from '../../platform/http/responses/graph-records';
import { ClearResponse, GraphSnapshot, GraphStatsResponse, ImportResponse, PurgeResponse } from './maintenance.response';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite } from '@strata/auth/request-context.decorator';
import { Body, assertObjectBody } from '@strata/domain/validation';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { ClearCommand } from './clear.handler';
import { DecayCommand } from '@strata/maintenance/decay.handler';
import { ExportService, readExportOptions } from '@strata/maintenance/export.service';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { assertGraphWide } from '@strata/platform/scope/graph-wide';
import { GraphStatsService } from './graph-stats.service';
import { ImportSnapshotCommand } from './import-snapshot.handler';
import { PurgeCommand } from './purge.handler';

/** Graph-wide maintenance: stats, export/import, decay, purge, clear. Scoped principals get 403. */
@ApiTags('graph: maintenance')
@Controller()
export class MaintenanceController {
  constructor(
    private readonly commands: CommandBus,
    private readonly statsService: GraphStatsService,
    private readonly exports: ExportService,
    private readonly scopes: ReadScopeService,
  ) {}

  @Get('stats')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Graph-wide counts by state, type and layer; versions, aliases, embeddings, series points (of what the caller may read)' })
  @Answers(200, 'graph-wide counts', GraphStatsResponse)
  async stats(@Auth() auth: AuthContext): Promise<GraphStatsResponse> {
    // Space- and Project-scoped callers are refused; the Space rule's hidden nodes are left out of the counts
    const scope = await this.scopes.graphWideScope(auth);
    return scope.hidden.size ? this.statsService.statsWithout(auth.org_id, scope.hidden) : this.statsService.stats(auth.org_id);
  }

  @Get('export')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Stream a strata.graph v1 snapshot: nodes, edges, aliases, embeddings, series points' })
  @Answers(200, 'a strata.graph v1 snapshot', GraphSnapshot)
  async export(@Auth() auth: AuthContext, @Query() query: Body, @Res() reply: FastifyReply) {
    assertGraphWide(auth);
    const opts = readExportOptions(query);
    // a caller the Space rule hides nodes from gets the snapshot without them and their edges
    const scope = await this.scopes.of(auth);
    const visible = scope.restricted ? (uid: string) => scope.allows(uid) : null;
    return reply.header('content-type', 'application/json; charset=utf-8').send(this.exports.stream(auth.org_id, opts, visible));
  }

  @Post('import')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Import a strata.graph snapshot: atomic, additive, idempotent' })
  @ApiBody({ type: GraphSnapshot })
  @Answers(200, 'what was imported and skipped', ImportResponse)
  async import(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<ImportResponse> {
    await this.scopes.assertGraphWide(auth);
    assertCanWrite(auth);
    const body = assertObjectBody(raw);
    return this.commands.execute(new ImportSnapshotCommand(commandContext(auth, rid), body));
  }

  @Post('decay')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Decay salience by half-life; optional auto-tombstone of old, low-salience nodes; dry_run' })
  @Answers(200, 'the decay’s counts', DecayResponse)
  async decay(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<DecayResponse> {
    await this.scopes.assertGraphWide(auth);
    assertCanWrite(auth);
    const body = assertObjectBody(raw);
    return this.commands.execute(new DecayCommand(commandContext(auth, rid), body));
  }

  @Post('purge')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Permanently delete data tombstoned before a cut-off, from the log and every projection' })
  @Answers(200, 'what was deleted for good', PurgeResponse)
  async purge(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<PurgeResponse> {
    await this.scopes.assertGraphWide(auth);
    assertCanWrite(auth);
    const body = assertObjectBody(raw);
    return this.commands.execute(new PurgeCommand(commandContext(auth, rid), body));
  }

  @Post('clear')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "Delete the organization's whole graph (embedding configuration kept) and compact storage" })
  @Answers(200, 'what was removed', ClearResponse)
  async clear(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<ClearResponse> {
    await this.scopes.assertGraphWide(auth);
    assertCanWrite(auth);
    assertObjectBody(raw);
    return this.commands.execute(new ClearCommand(commandContext(auth, rid)));
  }
}
