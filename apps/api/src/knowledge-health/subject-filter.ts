import { Errors } from '@strata/domain/errors';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { KnowledgeHealthReadModel } from '@strata/projections/knowledge-health/knowledge-health-read-model';

/** A `project` or `space` filter names a live node of that type the caller can see (404 / 400 wrong_node_type). */
export function assertFilterNode(model: KnowledgeHealthReadModel, scope: ReadScope, field: 'project' | 'space', uid: string): void {
  const n = model.nodeRow(scope.org, uid);
  if (!n || n.live !== 1 || !scope.allows(uid)) throw Errors.refNotFound(field, uid);
  const type = field === 'project' ? 'Project' : 'Space';
  if (n.node_type !== type) throw Errors.wrongNodeType(field, uid, n.node_type, [type]);
}
