import { Inject, Injectable } from '@nestjs/common';
import { ENTITY_NODE_TYPE_NAMES, normaliseText } from '@strata/domain/catalogue';
import { FuzzyMatch, TrigramMatcher, pickAliasMatch, rankFuzzy } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { entityCandidateTexts } from './entity-candidates';

export interface ExactMatch {
  uid: string;
  label: string;
  node_type: string;
  score: number;
}

export interface FuzzyResult extends ExactMatch {
  matched_text: string;
}

/**
 * Entity resolution (REFERENCE §4.2, §8.4): exact matching on normalised text against
 * aliases and entity labels, and trigram-similarity ranking. Live, in-scope nodes only.
 */
@Injectable()
export class EntityResolutionService {
  constructor(@Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel) {}

  /** Best exact match: alias score (a label match counts 1.0), then the oldest node, then uid. */
  async exact(scope: ReadScope, text: string, types: string[] | null): Promise<ExactMatch | null> {
    const norm = normaliseText(text);
    if (!norm) return null;
    const candidates: { node: NodeRecord; canonical_uid: string; score: number; node_created_at: number }[] = [];
    const aliases = await this.graph.aliasesByNorm(scope.org, norm);
    const owners = await this.graph.getNodes(scope.org, aliases.map((a) => a.canonical_uid));
    for (const a of aliases) {
      const n = owners.get(a.canonical_uid);
      if (n && this.eligible(scope, n, types)) candidates.push({ node: n, canonical_uid: n.uid, score: a.score, node_created_at: n.created_at });
    }
    const labelTypes = types ? types.filter((t) => ENTITY_NODE_TYPE_NAMES.includes(t)) : [...ENTITY_NODE_TYPE_NAMES];
    if (labelTypes.length) {
      const byLabel = await this.graph.listNodes(scope.org, { node_types: labelTypes, label_norm: norm }, { limit: 1000, offset: 0 }, 'created_asc');
      for (const n of byLabel.items) if (scope.allows(n.uid)) candidates.push({ node: n, canonical_uid: n.uid, score: 1, node_created_at: n.created_at });
    }
    const best = pickAliasMatch(candidates);
    return best ? { uid: best.node.uid, label: best.node.label, node_type: best.node.node_type, score: best.score } : null;
  }

  /** Trigram Jaccard ranking; a node scores its best label or alias; below `minScore` dropped. */
  async fuzzy(scope: ReadScope, text: string, opts: { limit: number; min_score: number; types: string[] | null; exclude?: string }): Promise<FuzzyResult[]> {
    const matcher = new TrigramMatcher(text);
    if (!matcher.norm) return [];
    const texts: { uid: string; text: string; norm: string }[] = [];
    const info = new Map<string, { label: string; node_type: string }>();
    for await (const c of entityCandidateTexts(this.graph, scope.org, opts.types)) {
      if (c.uid === opts.exclude || !scope.allows(c.uid)) continue;
      texts.push(c);
      if (!info.has(c.uid)) info.set(c.uid, { label: c.label, node_type: c.node_type });
    }
    return rankFuzzy(matcher, texts, opts.min_score)
      .slice(0, opts.limit)
      .map((m: FuzzyMatch) => ({ uid: m.uid, label: info.get(m.uid)!.label, node_type: info.get(m.uid)!.node_type, score: m.score, matched_text: m.matched_text }));
  }

  private eligible(scope: ReadScope, n: NodeRecord, types: string[] | null): boolean {
    return n.tombstone_at === null && scope.allows(n.uid) && (!types || types.includes(n.node_type));
  }
}
