import { NodeRecord } from '../records';
import { CognitiveView } from './cognitive-view';

/**
 * The live steps a container (Flow via ComposedOf, Plan via HasStep) holds, and the next
 * order: the highest step order plus 1, starting at 1. Steps the caller cannot see count too:
 * the step_count and the order are the container's, shared by everyone who reads it.
 */
export async function containerSteps(scoped: CognitiveView, container: NodeRecord, edgeType: string) {
  const view = scoped.unscoped ?? scoped;
  const edges = await view.edges({ from_uid: container.uid, edge_types: [edgeType] });
  const steps: NodeRecord[] = [];
  for (const e of edges) {
    const n = await view.node(e.to_uid);
    if (n && n.tombstone_at === null) steps.push(n);
  }
  let highest = 0;
  for (const s of steps) {
    const o = s.props.order;
    if (typeof o === 'number' && o > highest) highest = o;
  }
  return { steps, nextOrder: Math.floor(highest) + 1 };
}
