import { NodeRecord } from '@strata/domain/records';
import type { GraphTx } from '../unit-of-work/graph-tx';

/** Strings a request body may name uids with; deeper or larger bodies are not walked further. */
const MAX_DEPTH = 6;
const MAX_STRINGS = 5000;

/**
 * The nodes a request names and its handler read before a state guard refused it: what the
 * request would have written (the node it moves, the targets of the edges it would add), for
 * rules that answer before that guard (REFERENCE §13.6). A node is named when its uid is a
 * segment of the path or a string of the body; the Space a request places nodes in is not one.
 */
export function namedNodes(tx: GraphTx): Map<string, NodeRecord> {
  const http = tx.ctx.http;
  const out = new Map<string, NodeRecord>();
  if (!http) return out;
  const named = new Set(http.path.split('/').filter(Boolean).map(safeDecode));
  collectStrings(http.body(), named, 0);
  for (const [uid, node] of tx.storedNodeEntries()) {
    if (!node || !named.has(uid) || uid === tx.placement?.space_uid) continue;
    out.set(uid, node);
  }
  return out;
}

function collectStrings(v: unknown, into: Set<string>, depth: number): void {
  if (into.size >= MAX_STRINGS || depth > MAX_DEPTH) return;
  if (typeof v === 'string') into.add(v);
  else if (Array.isArray(v)) for (const x of v) collectStrings(x, into, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) collectStrings(x, into, depth + 1);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * What a request refused by a state guard would have written: the nodes it names and the nodes
 * its handler had decided to create (`GraphTx.wouldCreate`), each with the Spaces it would be
 * placed in (the request's placement; none for a named node, whose Spaces are read).
 */
export function wouldBeWritten(tx: GraphTx): { nodes: Map<string, NodeRecord>; placed: Map<string, string[]> } {
  const nodes = namedNodes(tx);
  const placed = new Map<string, string[]>();
  for (const n of tx.wouldCreate) {
    nodes.set(n.uid, n);
    placed.set(n.uid, tx.placement ? [tx.placement.space_uid] : []);
  }
  return { nodes, placed };
}
