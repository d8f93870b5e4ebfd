import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import {
  DEFAULT_WEAK_CLAIM_THRESHOLD,
  RETRIEVE_ACTIONS,
  RetrieveAction,
  compareSalience,
  readNodeTypes,
  readOptionalLayer,
  readQueryText,
  readSearchCount,
  readSearchOffset,
} from '@strata/domain/retrieval';
import { Body, present, readBoolean, readNumber, readPage, readUid, readUnit } from '@strata/domain/validation';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel, NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { ReviewQueuesService } from '../shortcuts/review-queues.service';
import { ProvenanceService } from '@strata/platform/scope/provenance.service';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { RankingService } from './ranking.service';
import { StaleDerivationsService } from './stale-derivations.service';

/** Everything an action might return that carries full nodes (for include_sources). */
type Scored = { node: NodeRecord & { source_documents?: unknown }; score: number; legs?: unknown };

/** `POST /retrieve` (REFERENCE §5): fourteen read-only actions, always 200. */
@Injectable()
export class RetrieveService {
  constructor(
    private readonly ranking: RankingService,
    private readonly queues: ReviewQueuesService,
    private readonly stale: StaleDerivationsService,
    private readonly provenance: ProvenanceService,
    private readonly scopes: ReadScopeService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async run(baseScope: ReadScope, body: Body): Promise<unknown> {
    const action = body.action as RetrieveAction;
    if (typeof action !== 'string' || !RETRIEVE_ACTIONS.includes(action)) throw Errors.unknownAction(body.action, RETRIEVE_ACTIONS);
    switch (action) {
      case 'text':
      case 'semantic':
      case 'hybrid':
        return this.search(action, baseScope, body);
      case 'preferences':
        return this.preferences(baseScope, body);
      case 'active_goals':
        return this.queues.activeGoals(baseScope, listLimit(body));
      case 'open_questions':
        return this.queues.openQuestions(baseScope, listLimit(body));
      case 'weak_claims':
        return this.queues.weakClaims(baseScope, readUnit(body, 'threshold') ?? DEFAULT_WEAK_CLAIM_THRESHOLD, listLimit(body));
      case 'pending_approvals':
        return this.queues.pendingApprovals(baseScope, listLimit(body));
      case 'unresolved_contradictions':
        return this.queues.unresolvedContradictions(baseScope, listLimit(body));
      case 'merge_candidates':
        return this.queues.mergeCandidates(baseScope, listLimit(body));
      case 'curation_counts':
        return this.curationCounts(baseScope, readUnit(body, 'threshold') ?? DEFAULT_WEAK_CLAIM_THRESHOLD);
      case 'stale_derivations': {
        const page = readPage(body, { limit: 50, max: 1000 });
        const all = await this.stale.all(baseScope);
        return { items: all.slice(page.offset, page.offset + page.limit), has_more: all.length > page.offset + page.limit, ...page };
      }
      case 'layer': {
        const layer = readOptionalLayer(body);
        if (layer === undefined) throw Errors.missingField('layer');
        return this.listPage(baseScope, { layer }, readPage(body, { limit: 20, max: 1000 }));
      }
      case 'recent':
        return this.listPage(baseScope, readRecentFilter(body), readPage(body, { limit: 20, max: 1000 }));
    }
  }

  private async search(action: 'text' | 'semantic' | 'hybrid', baseScope: ReadScope, body: Body): Promise<Scored[]> {
    const query = readQueryText(body)!;
    const node_types = readNodeTypes(body);
    const layer = readOptionalLayer(body);
    const includeSources = readBoolean(body, 'include_sources') ?? false;
    const scope = await this.scopes.withProject(baseScope, readUid(body, 'project_uid'));
    const q = { query, node_types, layer };
    let results: Scored[];
    if (action === 'text') {
      const limit = readSearchCount(body, 'limit', 20);
      results = await this.ranking.textRank(scope, q, limit, readNumber(body, 'min_score'), readSearchOffset(body));
    } else {
      const k = readK(body);
      const offset = readSearchOffset(body);
      if (action === 'semantic') results = await this.ranking.semanticRank(scope, q, k, readNumber(body, present(body, 'threshold') ? 'threshold' : 'min_score'), offset);
      else {
        const explain = readBoolean(body, 'explain') ?? false;
        const fused = (await this.ranking.hybridRank(scope, q, k, offset)).results;
        results = fused.map((r) => (explain ? r : { node: r.node, score: r.score }));
      }
    }
    if (includeSources) await this.addSources(scope, results);
    return results;
  }

  /** With a query: hybrid over Preferences (score = fused). Without: by salience (score = salience). */
  private async preferences(baseScope: ReadScope, body: Body): Promise<Scored[]> {
    const query = readQueryText(body, 'query', { required: false });
    const k = readK(body);
    const offset = readSearchOffset(body);
    const layer = readOptionalLayer(body);
    const scope = await this.scopes.withProject(baseScope, readUid(body, 'project_uid'));
    let results: Scored[];
    if (query) {
      results = (await this.ranking.hybridRank(scope, { query, node_types: ['Preference'], layer }, k, offset)).results.map((r) => ({ node: r.node, score: r.score }));
    } else {
      const f: NodeFilter = scope.nodeFilter<NodeFilter>({ node_types: ['Preference'], ...(layer ? { layer } : {}) });
      const all = (await this.graph.listNodes(scope.org, f, { limit: 1_000_000, offset: 0 }, 'salience_desc')).items.sort(compareSalience);
      results = all.slice(offset, offset + k).map((node) => ({ node, score: node.salience }));
    }
    if (readBoolean(body, 'include_sources')) await this.addSources(scope, results);
    return results;
  }

  private async curationCounts(scope: ReadScope, threshold: number) {
    const counts = {
      merge_candidates: await this.queues.countMergeCandidates(scope),
      unresolved_contradictions: await this.queues.countContradictions(scope),
      weak_claims: await this.queues.countWeakClaims(scope, threshold),
      stale_derivations: (await this.stale.all(scope)).length,
      open_questions: await this.queues.count(scope, 'open_questions'),
      pending_approvals: await this.queues.count(scope, 'pending_approvals'),
      skill_reviews: await this.queues.count(scope, 'skill_reviews'),
    };
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    return { ...counts, total, threshold, generated_at: this.clock.now() };
  }

  /** Newest first; `has_more` is exact (one more row is read). */
  private async listPage(scope: ReadScope, filter: NodeFilter, page: { limit: number; offset: number }) {
    const f = scope.nodeFilter(filter);
    const r = await this.graph.listNodes(scope.org, f, page, 'created_desc');
    return { items: r.items, has_more: r.has_more, limit: page.limit, offset: page.offset };
  }

  private async addSources(scope: ReadScope, results: Scored[]): Promise<void> {
    const docs = await this.provenance.sourceDocuments(scope, results.map((r) => r.node));
    for (const r of results) r.node = { ...r.node, source_documents: docs.get(r.node.uid) ?? [] };
  }
}

/** NodeList actions: default 100, at most 1000 (REFERENCE §4.0). */
function listLimit(body: Body): number {
  return readPage(body, { limit: 100, max: 1000 }).limit;
}

/** `k` wins over `limit` when both are sent; default 10, at most 1000. */
function readK(body: Body): number {
  return present(body, 'k') ? readSearchCount(body, 'k', 10) : readSearchCount(body, 'limit', 10);
}

function readRecentFilter(body: Body): NodeFilter {
  const f: NodeFilter = {};
  const types = readNodeTypes(body);
  if (types) f.node_types = types;
  const layer = readOptionalLayer(body);
  if (layer) f.layer = layer;
  const cmin = readUnit(body, 'confidence_min');
  if (cmin !== undefined) f.confidence_min = cmin;
  const smin = readUnit(body, 'salience_min');
  if (smin !== undefined) f.salience_min = smin;
  const after = readNumber(body, 'created_after');
  if (after !== undefined) f.created_after = after;
  const before = readNumber(body, 'created_before');
  if (before !== undefined) f.created_before = before;
  return f;
}
