import { NodeRecord } from '../records';

/**
 * The next version of a node the service keeps as the graph's mirror of one of its own
 * records (an agent, a session, an approval): its props as the record now is, replaced whole,
 * with no client rule to check because no client wrote them.
 */
export function decideMirrorVersion(n: NodeRecord, props: object, now: number, label: string = n.label): NodeRecord {
  return { ...n, label, props: props as NodeRecord['props'], updated_at: now, version: n.version + 1 };
}
