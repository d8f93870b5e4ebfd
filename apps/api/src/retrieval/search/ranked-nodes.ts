import { compareScored, ScoredUid, tieWindow } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { liveNodesInOrder } from '../shared/node-loader';
import { ReadScope } from '@strata/platform/scope/read-scope';

export interface ScoredNode {
  node: NodeRecord;
  score: number;
}

/**
 * Nodes for hits already in the §5.1 order (an index that breaks ties itself: the text index),
 * with their scores, in that order; hits whose node is gone or out of scope are dropped.
 */
export async function indexOrderPage(graph: GraphReadModel, scope: ReadScope, hits: readonly ScoredUid[]): Promise<ScoredNode[]> {
  const score = new Map(hits.map((h) => [h.uid, h.score]));
  const nodes = await liveNodesInOrder(graph, scope, hits.map((h) => h.uid));
  return nodes.map((node) => ({ node, score: score.get(node.uid)! }));
}

/**
 * Results [offset, offset + limit) of the §5.1 order (score, then salience, then uid) from
 * hits sorted by score that hold every hit scoring as well as the page's last one
 * (`fetchThroughTies`). Only the page and the hits tying its ends are loaded.
 */
export async function rankedNodePage(graph: GraphReadModel, scope: ReadScope, hits: readonly ScoredUid[], offset: number, limit: number): Promise<ScoredNode[]> {
  const { from, to } = tieWindow(hits, offset, limit);
  if (from >= to) return [];
  const window = hits.slice(from, to);
  const score = new Map(window.map((h) => [h.uid, h.score]));
  const nodes = await liveNodesInOrder(graph, scope, window.map((h) => h.uid));
  const ranked = nodes.map((node) => ({ node, score: score.get(node.uid)! })).sort(compareScored);
  return ranked.slice(offset - from, offset - from + limit);
}
