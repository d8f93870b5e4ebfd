import { readUid } from '../validation';
import { EndpointDef, reads } from './action';
import { allNodes } from './cognitive-view';
import { createAction } from './create-action';
import { readResult } from './decision';
import { readListLimit } from './node-list';
import { loadLive } from './triggers';

/** `get_assessments`: live RiskAssessments, newest first, optionally about one node. */
const getAssessments = reads(async (body, view) => {
  const limit = readListLimit(body);
  const filterUid = readUid(body, 'filter_uid');
  if (filterUid === undefined) {
    const page = await view.findNodes({ node_types: ['RiskAssessment'] }, { limit, offset: 0 }, 'created_desc');
    return readResult(page.items);
  }
  await loadLive(view, [{ uid: filterUid, field: 'filter_uid' }]);
  // targeted by props.target_uid, or reached by a live RiskAssessedBy edge from the node
  const byProp = await allNodes(view, { node_types: ['RiskAssessment'], props_equals: { target_uid: filterUid } });
  const seen = new Set(byProp.map((n) => n.uid));
  const out = [...byProp];
  for (const e of await view.edges({ from_uid: filterUid, edge_types: ['RiskAssessedBy'] })) {
    if (seen.has(e.to_uid)) continue;
    const n = await view.node(e.to_uid);
    if (n && n.tombstone_at === null && n.node_type === 'RiskAssessment') {
      seen.add(n.uid);
      out.push(n);
    }
  }
  out.sort((a, b) => b.created_at - a.created_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return readResult(out.slice(0, limit));
});

/** REFERENCE §4.10 `/action/risk`. */
export const ACTION_RISK: EndpointDef = {
  path: 'action/risk',
  actions: {
    assess: createAction({
      nodeType: 'RiskAssessment',
      defaultLabel: 'Risk Assessment',
      defaults: () => ({ requires_approval: true }),
      triggers: [{ field: 'assessed_uid', edge: 'RiskAssessedBy', dir: 'in', arity: 'one', setProp: 'target_uid' }],
    }),
    get_assessments: getAssessments,
  },
};
