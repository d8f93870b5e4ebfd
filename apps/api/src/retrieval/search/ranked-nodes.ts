import { ScoredUid, compareRanked, tieWindow } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { NodeHead, RankingReads, liveNodesInOrder } from '../shared/node-loader';
import { ReadScope } from '@strata/platform/scope/read-scope';

export interface ScoredNode {
  node: NodeRecord;
  score: number;
}

/** A ranked candidate before its record is read: what fusion and the §5.1 order need. */
export interface RankedHead extends NodeHead {
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

/** The same as `indexOrderPage`, as heads (no record read). */
export async function indexOrderHeads(reads: RankingReads, hits: readonly ScoredUid[]): Promise<RankedHead[]> {
  const heads = await reads.heads(hits.map((h) => h.uid));
  const out: RankedHead[] = [];
  for (const h of hits) {
    const head = heads.get(h.uid);
    if (head) out.push({ ...head, score: h.score });
  }
  return out;
}

/**
 * Results [offset, offset + limit) of the §5.1 order (score, then salience, then uid) from
 * hits sorted by score that hold every hit scoring as well as the page's last one
 * (`fetchThroughTies`), as heads. Only the page and the hits tying its ends are looked up.
 */
export async function rankedHeadPage(reads: RankingReads, hits: readonly ScoredUid[], offset: number, limit: number): Promise<RankedHead[]> {
  const { from, to } = tieWindow(hits, offset, limit);
  if (from >= to) return [];
  const ranked = (await indexOrderHeads(reads, hits.slice(from, to))).sort(compareRanked);
  return ranked.slice(offset - from, offset - from + limit);
}

/** `rankedHeadPage` with the page's records. */
export async function rankedNodePage(graph: GraphReadModel, scope: ReadScope, hits: readonly ScoredUid[], offset: number, limit: number): Promise<ScoredNode[]> {
  const reads = new RankingReads(graph, scope);
  return withRecords(reads, await rankedHeadPage(reads, hits, offset, limit));
}

/** Ranked uids with their records, in order (a node gone since its head was read is dropped). */
export async function withRecords(reads: RankingReads, ranked: readonly ScoredUid[]): Promise<ScoredNode[]> {
  const nodes = await reads.nodesInOrder(ranked.map((h) => h.uid));
  const score = new Map(ranked.map((h) => [h.uid, h.score]));
  return nodes.map((node) => ({ node, score: score.get(node.uid)! }));
}
