import { Injectable } from '@nestjs/common';
import type { NodeRecord } from '@strata/domain/records';

/** How the area that owns a node type reads one of its nodes at a time (seconds). */
export type NodeReadView = (org: string, node: NodeRecord, now: number) => NodeRecord;

/**
 * Node types whose stored state can lag what is already true at read time, each with the view
 * its owning area registers: an Approval node past its approval's `expires_at` reads expired
 * before the sweep records it. The graph's read routes apply them; the other nodes pass as
 * they are, and a route can tell from `watches` that a stored JSON text needs no parse.
 */
@Injectable()
export class NodeReadViews {
  private readonly byType = new Map<string, NodeReadView>();
  private needles: string[] = [];

  add(nodeType: string, view: NodeReadView): void {
    this.byType.set(nodeType, view);
    this.needles = [...this.byType.keys()].map((t) => `"node_type":${JSON.stringify(t)}`);
  }

  at(org: string, node: NodeRecord, now: number): NodeRecord {
    const view = this.byType.get(node.node_type);
    return view ? view(org, node, now) : node;
  }

  /** whether a node's stored JSON text may read otherwise (its type has a view) */
  watches(doc: string): boolean {
    for (const n of this.needles) if (doc.includes(n)) return true;
    return false;
  }
}
