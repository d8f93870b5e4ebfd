import { DomainError, Errors } from '../errors';
import { decideUpdateNode } from '../graph';
import { NodeRecord } from '../records';
import { present, readEnum, readString, readUid } from '../validation';
import { ActionDef, EndpointDef, reads, writes } from './action';
import { allNodes, CognitiveView } from './cognitive-view';
import { createAction, planCreate, readLabel } from './create-action';
import { ChangeSet, readResult } from './decision';
import { byPropNumber, readListLimit } from './node-list';
import { readPropsPatch } from './props-patch';
import { requirePresent } from './required';
import { checkTriggerShapes, createTriggerEdges, loadLive, parseTriggers, resolveTriggers, TriggerDef } from './triggers';
import { oldestInPlacement } from './upsert-match';

export const EXECUTION_STATUSES = ['running', 'completed', 'failed'] as const;

const PRODUCES: readonly TriggerDef[] = [{ field: 'produces_node_uid', edge: 'ProducesNode', dir: 'out', arity: 'one_or_many' }];

/**
 * `complete` / `fail`: only a running execution ends (409 invalid_transition otherwise).
 * `build` reads the action's own fields and returns the props it sets.
 */
function finish(outcome: 'completed' | 'failed', build: (patch: Record<string, unknown>, error: string | undefined) => Record<string, unknown>): ActionDef {
  return writes(async (body, view, ctx, action) => {
    // §2.8: the product's clients name the execution, or the Task or Plan it runs, `task_uid`
    const field = !present(body, 'execution_uid') && present(body, 'task_uid') ? 'task_uid' : 'execution_uid';
    requirePresent(body, [field]);
    const triggers = outcome === 'completed' ? PRODUCES : [];
    checkTriggerShapes(body, triggers);
    const error = readString(body, 'error', { max: 10_000 });
    const patch = readPropsPatch(body, 'Execution');
    const uid = readUid(body, field, { required: true })!;
    const parsed = parseTriggers(body, triggers);
    const types = field === 'task_uid' ? ['Execution', 'Task', 'Plan'] : ['Execution'];
    const { triggers: produced, extra } = await resolveTriggers(view, parsed, [{ uid, field, types }]);
    const execution = extra[0].node_type === 'Execution' ? extra[0] : await theRunningExecutionOf(view, extra[0]);
    const from = (execution.props.status as string | null) ?? null;
    if (from !== 'running')
      throw Errors.invalidTransition(`execution ${execution.uid} is ${from ?? 'not running'}; only a running execution can be ${outcome}`, from, []);
    const cs = new ChangeSet(ctx);
    const next = cs.updateNode(decideUpdateNode(execution, { props: { ...build(patch, error), status: outcome, completed_at: ctx.now } }, ctx), action);
    await createTriggerEdges(cs, view, next, produced);
    return cs.transitionResult(next, action);
  });
}

/**
 * The one running Execution of a Task or Plan (its ExecutionOf target). None or several is a
 * 409 that lists them: the caller must then name the execution itself.
 */
async function theRunningExecutionOf(view: CognitiveView, target: NodeRecord): Promise<NodeRecord> {
  const running: NodeRecord[] = [];
  for (const e of await view.edges({ to_uid: target.uid, edge_types: ['ExecutionOf'] })) {
    const n = await view.node(e.from_uid);
    if (n && n.tombstone_at === null && n.node_type === 'Execution' && n.props.status === 'running' && !running.some((r) => r.uid === n.uid)) running.push(n);
  }
  if (running.length === 1) return running[0];
  const uids = running.map((r) => r.uid);
  throw new DomainError(
    409,
    'invalid_transition',
    running.length
      ? `${target.node_type} ${target.uid} has ${running.length} running executions (${uids.join(', ')}); name one with execution_uid`
      : `${target.node_type} ${target.uid} has no running execution`,
    { from_status: null, allowed: [], running_execution_uids: uids },
  );
}

/** `register_agent`: upsert by name, case-insensitively; an existing agent is returned unchanged. */
const registerAgent = writes(async (body, view, ctx, action) => {
  const label = readLabel(body);
  const { cs, node } = await planCreate(
    { nodeType: 'Agent', defaults: () => ({ name: label, status: 'active' }) },
    body,
    view,
    ctx,
  );
  const name = String(node.props.name);
  const wanted = name.toLowerCase();
  const named = (await allNodes(view, { node_types: ['Agent'] }, 'created_desc')).filter(
    (a: NodeRecord) => typeof a.props.name === 'string' && a.props.name.toLowerCase() === wanted,
  );
  const existing = await oldestInPlacement(named, ctx);
  if (existing) return { status: 200, body: { uid: existing.uid, name: existing.props.name, created: false }, changes: [] };
  return cs.createResult(node, action, { name, created: true });
});

/** `get_executions`: live executions, most recently started first. */
const getExecutions = reads(async (body, view) => {
  const limit = readListLimit(body);
  const status = readEnum(body, 'status', EXECUTION_STATUSES);
  const planUid = readUid(body, 'filter_plan_uid');
  let items = await allNodes(view, { node_types: ['Execution'], ...(status ? { props_equals: { status } } : {}) });
  if (planUid !== undefined) {
    await loadLive(view, [{ uid: planUid, field: 'filter_plan_uid' }]);
    const of = new Set((await view.edges({ to_uid: planUid, edge_types: ['ExecutionOf'] })).map((e) => e.from_uid));
    items = items.filter((n) => of.has(n.uid));
  }
  return readResult(items.sort(byPropNumber('started_at', 'desc')).slice(0, limit));
});

/** REFERENCE §4.17 `/agent/execution`. */
export const AGENT_EXECUTION: EndpointDef = {
  path: 'agent/execution',
  actions: {
    start: createAction({
      nodeType: 'Execution',
      defaultLabel: 'Execution',
      defaults: ({ ctx }) => ({ status: 'running', started_at: ctx.now }),
      overrides: ({ trigger }) => {
        const plan = trigger('plan_uid')?.nodes[0];
        return plan?.node_type === 'PlanStep' ? { plan_step_uid: plan.uid } : {};
      },
      triggers: [
        // §2.8: `task_uid` is the product clients' name for it, and may name a Task as well
        { field: 'plan_uid', aliases: ['task_uid'], aliasTypes: ['Plan', 'PlanStep', 'Task'], edge: 'ExecutionOf', dir: 'out', arity: 'one', types: ['Plan', 'PlanStep'] },
        { field: 'executor_uid', edge: 'ExecutedBy', dir: 'out', arity: 'one', types: ['Agent'], setProp: 'agent_uid' },
        { field: 'related_uids', edge: 'Targets', dir: 'out', arity: 'many' },
      ],
    }),
    complete: finish('completed', (patch) => {
      const out: Record<string, unknown> = {};
      if (patch.output_snapshot !== undefined) out.output_snapshot = patch.output_snapshot;
      if (patch.description !== undefined) out.description = patch.description;
      return out;
    }),
    fail: finish('failed', (patch, error) => ({ error: error ?? (typeof patch.error === 'string' ? patch.error : null) })),
    register_agent: registerAgent,
    get_executions: getExecutions,
  },
};
