import { Errors } from '../errors';
import { decideUpdateNode } from '../graph';
import { readBoolean, readObject, readString, readUid } from '../validation';
import { EndpointDef, reads, writes } from './action';
import { allNodes } from './cognitive-view';
import { createAction, planCreate, sentProps } from './create-action';
import { ChangeSet, readResult } from './decision';
import { byPropNumber, readListLimit } from './node-list';
import { readPropsPatch } from './props-patch';
import { requirePresent } from './required';
import { loadLive } from './triggers';
import { oldestInPlacement } from './upsert-match';

const BUDGET_DEFAULT_LIMIT = 100;

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' ? v : fallback;
}

/**
 * `set_budget`: with `governed_uid`, an upsert by (governed_uid, budget_type); remaining is
 * always limit − consumed, recomputed by the server.
 */
const setBudget = writes(async (body, view, ctx, action) => {
  const props = sentProps(body, 'SafetyBudget', ['governed_uid']);
  const { cs, node, triggers } = await planCreate(
    {
      nodeType: 'SafetyBudget',
      defaultLabel: 'Safety Budget',
      defaults: () => ({ limit: BUDGET_DEFAULT_LIMIT, consumed: 0 }),
      triggers: [{ field: 'governed_uid', edge: 'BudgetFor', dir: 'out', arity: 'one', setProp: 'scope_uid' }],
    },
    body,
    view,
    ctx,
  );
  const governed = triggers[0]?.nodes[0];
  const budgetType = typeof node.props.budget_type === 'string' ? node.props.budget_type : null;
  const existing = governed
    ? await oldestInPlacement(await allNodes(view, { node_types: ['SafetyBudget'], props_equals: { scope_uid: governed.uid, budget_type: budgetType } }), ctx)
    : undefined;
  if (!existing) {
    node.props.remaining = num(node.props.limit, BUDGET_DEFAULT_LIMIT) - num(node.props.consumed, 0);
    return cs.createResult(node, action, { created: true });
  }
  // only the fields the caller sent change; the budget keeps its identity (scope, type)
  const patch: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) if (k !== '_type' && k !== 'scope_uid' && k !== 'remaining' && v !== null) patch[k] = node.props[k];
  const limit = num(patch.limit ?? existing.props.limit, BUDGET_DEFAULT_LIMIT);
  const consumed = num(patch.consumed ?? existing.props.consumed, 0);
  patch.remaining = limit - consumed;
  const update = new ChangeSet(ctx);
  const label = typeof body.label === 'string' && body.label.trim() ? { label: body.label } : {};
  const next = update.updateNode(decideUpdateNode(existing, { ...label, props: patch }, ctx), action);
  // keep exactly one live BudgetFor to the governed node
  const linked = await view.edges({ from_uid: existing.uid, to_uid: governed!.uid, edge_types: ['BudgetFor'] });
  if (!linked.length) update.edge(next, governed!, 'BudgetFor');
  return update.transitionResult(next, action, { created: false });
});

/** `resolve_approval`: pending → approved | denied; any other start is a 409. */
const resolveApproval = writes(async (body, view, ctx, action) => {
  requirePresent(body, ['approval_uid', 'approved']);
  const approved = readBoolean(body, 'approved', { required: true })!;
  const reason = readString(body, 'reason', { max: 10_000 });
  const patch = readPropsPatch(body, 'Approval');
  const uid = readUid(body, 'approval_uid', { required: true })!;
  const [approval] = await loadLive(view, [{ uid, field: 'approval_uid', types: ['Approval'] }]);
  const from = (approval.props.status as string | null) ?? null;
  if (from !== 'pending')
    throw Errors.invalidTransition(`approval ${uid} is ${from ?? 'not pending'}; only a pending approval can be resolved`, from, []);
  const props: Record<string, unknown> = {
    status: approved ? 'approved' : 'denied',
    decided_at: ctx.now,
    decided_by: ctx.principal_id,
    reason: reason ?? (typeof patch.reason === 'string' ? patch.reason : null),
  };
  if (patch.conditions !== undefined) props.conditions = patch.conditions;
  const cs = new ChangeSet(ctx);
  const next = cs.updateNode(decideUpdateNode(approval, { props }, ctx), reason ? `${action}: ${reason}` : action);
  return cs.transitionResult(next, action, { approved });
});

/** Live pending approvals, oldest request first (also `/retrieve pending_approvals`). */
const getPending = reads(async (body, view) => {
  const limit = readListLimit(body);
  const pending = await allNodes(view, { node_types: ['Approval'], props_equals: { status: 'pending' } });
  return readResult(pending.sort(byPropNumber('requested_at', 'asc')).slice(0, limit));
});

/** REFERENCE §4.16 `/agent/governance`. */
export const AGENT_GOVERNANCE: EndpointDef = {
  path: 'agent/governance',
  actions: {
    create_policy: createAction({
      nodeType: 'Policy',
      defaults: ({ label }) => ({ name: label, active: true, priority: 0 }),
      triggers: [{ field: 'governed_uids', edge: 'GovernedByPolicy', dir: 'in', arity: 'many' }],
    }),
    set_budget: setBudget,
    request_approval: createAction({
      nodeType: 'Approval',
      defaultLabel: 'Approval Request',
      defaults: ({ ctx }) => ({ status: 'pending', requested_at: ctx.now }),
      // governed_uid is optional (§4.16): an Approval may govern nothing in particular
      triggers: [{ field: 'governed_uid', edge: 'RequiresApproval', dir: 'in', arity: 'one' }],
      overrides: ({ trigger, ctx }) => {
        const t = trigger('governed_uid')?.nodes[0];
        return { target_uid: t?.uid ?? null, target_type: t?.node_type ?? null, status: 'pending', requested_at: ctx.now };
      },
      extras: () => ({ status: 'pending' }),
    }),
    resolve_approval: resolveApproval,
    get_pending: getPending,
  },
};
