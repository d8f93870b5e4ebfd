import { Body as ReqBody, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { readNodeTypes, readOptionalLayer, readQueryText, readSearchCount, readSearchOffset } from '@strata/domain/retrieval';
import { assertObjectBody, readBoolean, readNumber, readUid } from '@strata/domain/validation';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { ChunkSearchService } from './chunk-search.service';
import { TextSearchService } from './text-search.service';

/** `POST /search` (interface spec + REFERENCE §8.2): full text over labels, summaries and props text. */
@ApiTags('retrieval: search')
@Controller()
export class SearchController {
  constructor(
    private readonly search: TextSearchService,
    private readonly chunks: ChunkSearchService,
    private readonly scopes: ReadScopeService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  @Post('search')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({
    summary: 'Full-text search (BM25; label > summary > props text). Add include_edges / include_chunks for the enriched form',
  })
  async run(@Auth() auth: AuthContext, @ReqBody() raw: unknown) {
    const body = assertObjectBody(raw);
    const query = readQueryText(body)!;
    const node_types = readNodeTypes(body, 'node_type', ['node_types']);
    const layer = readOptionalLayer(body);
    const limit = readSearchCount(body, 'limit', 100);
    const offset = readSearchOffset(body);
    const min_score = readNumber(body, 'min_score');
    const includeEdges = readBoolean(body, 'include_edges') ?? false;
    const includeChunks = readBoolean(body, 'include_chunks') ?? false;
    const projectUid = readUid(body, 'project_uid');
    const scope = await this.scopes.withProject(await this.scopes.of(auth), projectUid);

    const ranked = await this.search.search(scope, { query, node_types, layer, limit, offset, min_score });
    const results = ranked.map(({ node, score }) => ({
      uid: node.uid,
      label: node.label,
      summary: node.summary,
      node_type: node.node_type,
      layer: node.layer,
      score,
    }));
    if (!includeEdges && !includeChunks) return results;
    const uids = results.map((r) => r.uid);
    const edges = includeEdges && uids.length ? await this.graph.listEdges(auth.org_id, { among: uids }) : [];
    const chunks = includeChunks ? await this.chunks.search(scope, query, readSearchCount(body, 'chunk_limit', 10, 100)) : [];
    return { results, edges, chunks };
  }
}
