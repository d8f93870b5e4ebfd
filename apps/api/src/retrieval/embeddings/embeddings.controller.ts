import { Body as ReqBody, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { ScoredNode } from '../../platform/http/responses/graph-records';
import { EmbedAllResponse, EmbeddingConfigResponse, EmbeddingDeletedResponse, EmbeddingSetResponse, NodeEmbeddingResponse } from './embeddings.response';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite } from '@strata/auth/request-context.decorator';
import { DomainError, Errors } from '@strata/domain/errors';
import { readNodeTypes, readOptionalLayer, readQueryText, readSearchCount } from '@strata/domain/retrieval';
import { vectorValuesProblem } from '@strata/domain/retrieval/vector-values';
import { Body, assertObjectBody, present, readNumber } from '@strata/domain/validation';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { pathUid } from '../../platform/http/path-params';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { ConfigureEmbeddingsCommand } from './configure-embeddings.handler';
import { EmbeddingJobs } from './embedding-jobs.service';
import { EffectiveEmbeddingConfig, EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { DeleteNodeEmbeddingCommand, SetNodeEmbeddingCommand } from './node-embedding.handlers';
import { SemanticSearchService, VectorSearchOptions } from './semantic-search.service';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

/** A vector from the body: an array of 1–8192 finite numbers a float32 can hold. */
function readVector(body: Body, fields: string[]): number[] {
  const field = fields.find((f) => present(body, f)) ?? fields[0];
  const v = body[field];
  if (v === undefined || v === null) throw Errors.missingField(fields[0]);
  if (!Array.isArray(v) || v.length === 0 || v.length > 8192) throw Errors.invalidField(field, `${field} must be an array of 1 to 8192 numbers`);
  const problem = vectorValuesProblem(v);
  if (problem) throw Errors.invalidField(field, `${field} must contain ${problem}`);
  return v as number[];
}

function readVectorSearch(body: Body): VectorSearchOptions {
  const thresholdField = present(body, 'threshold') ? 'threshold' : 'min_score';
  return {
    k: readSearchCount(body, 'k', 10),
    node_types: readNodeTypes(body, 'node_types', ['node_type']),
    layer: readOptionalLayer(body),
    threshold: readNumber(body, thresholdField),
  };
}

/** Embeddings (REFERENCE §8.7) and `POST /ingest/embed-all` (§9.3). */
@ApiTags('retrieval: embeddings')
@Controller()
export class EmbeddingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly settings: EmbeddingSettings,
    private readonly semantic: SemanticSearchService,
    @Inject(VECTORS) private readonly vectors: Vectors,
    private readonly jobs: EmbeddingJobs,
    private readonly scopes: ReadScopeService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  @Post('embeddings/configure')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Configure provider (builtin lexical or openai), model, dimensions, metric; re-embedding runs as a job' })
  @Answers(200, 'the configuration in force', EmbeddingConfigResponse)
  async configure(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<EmbeddingConfigResponse> {
    // the configuration is the organization's, and `force` drops every vector it has: refused to
    // any caller some nodes are hidden from
    await this.scopes.assertGraphWide(auth);
    assertCanWrite(auth);
    const body = assertObjectBody(raw);
    return this.commands.execute(new ConfigureEmbeddingsCommand(commandContext(auth, rid), body));
  }

  @Post('embeddings/search')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Nearest nodes to a raw vector (k, node_types, layer, threshold)' })
  @Answers(200, 'nearest live nodes, best first', [ScoredNode])
  async searchVector(@Auth() auth: AuthContext, @ReqBody() raw: unknown): Promise<ScoredNode[]> {
    const body = assertObjectBody(raw);
    const vector = readVector(body, ['vector', 'query']);
    const opts = readVectorSearch(body);
    const cfg = await this.settings.effective(auth.org_id);
    if (!cfg) throw this.settings.notConfigured(cfg, 'vector search needs an embedding configuration');
    if (vector.length !== cfg.dimensions)
      throw new DomainError(400, 'dimension_mismatch', `vector has ${vector.length} dimensions, the configuration has ${cfg.dimensions}`, {
        field: 'vector',
        expected: cfg.dimensions,
        actual: vector.length,
      });
    const scope = await this.scopes.of(auth);
    return this.semantic.toNodes(scope, await this.semantic.vectorHits(scope, vector, opts));
  }

  @Post('embeddings/search-text')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Nearest nodes to a text, embedded with the configured provider' })
  @Answers(200, 'nearest live nodes, best first', [ScoredNode])
  async searchText(@Auth() auth: AuthContext, @ReqBody() raw: unknown): Promise<ScoredNode[]> {
    const body = assertObjectBody(raw);
    const text = readQueryText(body, 'text', { aliases: ['query'] })!;
    const opts = readVectorSearch(body);
    const scope = await this.scopes.of(auth);
    return this.semantic.toNodes(scope, await this.semantic.textHits(scope, text, opts));
  }

  @Put('node/:uid/embedding')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "Set or replace a node's vector (kept until replaced or deleted)" })
  @Answers(200, 'the vector is stored', EmbeddingSetResponse)
  async put(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @ReqBody() raw: unknown) {
    assertCanWrite(auth);
    pathUid(uid);
    const body = assertObjectBody(raw);
    const vector = readVector(body, ['vector', 'embedding']);
    return this.commands.execute(new SetNodeEmbeddingCommand(commandContext(auth, rid), uid, vector, await this.scopes.of(auth)));
  }

  @Get('node/:uid/embedding')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "A node's vector, dimension and model" })
  @Answers(200, 'the node’s vector', NodeEmbeddingResponse)
  async get(@Auth() auth: AuthContext, @Param('uid') uid: string): Promise<NodeEmbeddingResponse> {
    pathUid(uid);
    // a vector route: 501 before configuration (REFERENCE §8.7), as PUT, whatever the node
    const cfg = await this.settings.effective(auth.org_id);
    if (!cfg) throw this.settings.notConfigured(cfg, 'embeddings are not configured');
    const scope = await this.scopes.of(auth);
    const node = await this.graph.getNode(auth.org_id, uid);
    if (!node || !scope.allows(uid)) throw Errors.notFound(`node ${uid} not found`, { uid });
    return this.vectorOf(scope, uid, cfg);
  }

  @Delete('node/:uid/embedding')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "Delete a node's vector" })
  @Answers(200, 'the vector is gone', EmbeddingDeletedResponse)
  async remove(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string): Promise<EmbeddingDeletedResponse> {
    assertCanWrite(auth);
    pathUid(uid);
    return this.commands.execute(new DeleteNodeEmbeddingCommand(commandContext(auth, rid), uid, await this.scopes.of(auth)));
  }

  @Post('ingest/embed-all')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Embed every live node without a vector, as a job (202 {job_id, nodes_pending}; poll GET /jobs/{id})' })
  @Answers(202, 'queued', EmbedAllResponse)
  async embedAll(@Auth() auth: AuthContext, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<EmbedAllResponse> {
    // embeds every live node of the organization (and reports how many): not a scoped operation
    await this.scopes.assertGraphWide(auth);
    assertCanWrite(auth);
    assertObjectBody(raw);
    const cfg = await this.settings.effective(auth.org_id);
    if (!cfg || !this.settings.embedder(cfg)) throw this.settings.notConfigured(cfg, 'embed-all needs an embedding provider');
    const pending = await this.jobs.pendingCount(auth.org_id);
    const job = await this.jobs.startEmbedAll(auth.org_id);
    reply.status(202);
    return { job_id: job.id, nodes_pending: pending };
  }

  private async vectorOf(scope: ReadScope, uid: string, cfg: EffectiveEmbeddingConfig) {
    const stored = await this.graph.getEmbedding(scope.org, uid);
    const live = await this.vectors.vectorOf(scope.org, uid);
    if (live) return { uid, vector: live, dimension: live.length, model: stored && stored.dimension === live.length ? stored.model : cfg.model };
    // tombstoned nodes keep a recorded vector (restored with them), outside the index
    if (stored) return { uid, vector: stored.vector, dimension: stored.dimension, model: stored.model };
    throw Errors.notFound(`node ${uid} has no embedding`, { uid });
  }
}
