import { Errors } from '../errors';
import { decideTombstoneEdge, decideUpdateNode } from '../graph';
import { Body, readString } from '../validation';
import { EndpointDef, reads, writes } from './action';
import { createAction } from './create-action';
import { ChangeSet, readResult } from './decision';
import { readListLimit } from './node-list';
import { readPropsPatch } from './props-patch';
import { checkRequiredTriggers, checkTriggerShapes, createTriggerEdges, parseTriggers, resolveTriggers, TriggerDef } from './triggers';

const DECISION: readonly string[] = ['Decision'];
const REPLACED = 'replaced by a new resolution';

/** A decision is open while its status is `open`, `revisited` or unset (REFERENCE §4.8). */
export const OPEN_DECISION_STATUSES: readonly (string | null)[] = ['open', 'revisited', null];

const RESOLVE_TRIGGERS: readonly TriggerDef[] = [
  { field: 'decision_uid', edge: 'DecidedOn', dir: 'out', arity: 'one', required: true, types: DECISION },
  { field: 'chosen_option_uid', edge: 'DecidedOn', dir: 'out', arity: 'one', required: true, types: ['Option'] },
  // informs goes X → decision; staged by hand below, so it is not a plain N → X trigger
  { field: 'informs_uid', edge: 'Informs', dir: 'in', arity: 'one_or_many' },
];

/** `resolve`: decided, with exactly one live DecidedOn (an earlier one is replaced). */
const resolve = writes(async (body, view, ctx, action) => {
  checkRequiredTriggers(body, RESOLVE_TRIGGERS);
  checkTriggerShapes(body, RESOLVE_TRIGGERS);
  const rationale = readString(body, 'rationale', { max: 10_000 });
  const edgeFields = readDecidedOnFields(body);
  const props = readPropsPatch(body, 'Decision');
  const parsed = parseTriggers(body, RESOLVE_TRIGGERS);
  const { triggers } = await resolveTriggers(view, parsed);
  const decision = triggers.find((t) => t.def.field === 'decision_uid')!.nodes[0];
  const option = triggers.find((t) => t.def.field === 'chosen_option_uid')!.nodes[0];
  const informs = triggers.find((t) => t.def.field === 'informs_uid');
  const offered = await view.edges({ from_uid: decision.uid, to_uid: option.uid, edge_types: ['HasOption'] });
  if (!offered.length)
    throw Errors.invalidField('chosen_option_uid', `option ${option.uid} is not an option of decision ${decision.uid} (no live HasOption edge)`, {
      uid: option.uid,
    });

  const cs = new ChangeSet(ctx);
  // every live DecidedOn is replaced, one to an option the caller cannot see too: one stays live
  const previous = await (view.unscoped ?? view).edges({ from_uid: decision.uid, edge_types: ['DecidedOn'] });
  const seen = await view.edges({ from_uid: decision.uid, edge_types: ['DecidedOn'] });
  const decisionRationale = rationale ?? (typeof props.decision_rationale === 'string' ? props.decision_rationale : null);
  const next = decideUpdateNode(
    decision,
    {
      props: {
        ...props,
        status: 'decided',
        decided_option_uid: option.uid,
        decided_at: ctx.now,
        decision_rationale: decisionRationale,
      },
    },
    ctx,
  );
  cs.updateNode(next, previous.length ? `resolve (replaces ${previous.map((e) => e.uid).join(', ')})` : 'resolve');
  for (const e of previous) cs.tombstoneEdge(decideTombstoneEdge(e, REPLACED, ctx)!, REPLACED);
  const decidedOn = cs.edge(decision, option, 'DecidedOn', { rationale: decisionRationale, ...edgeFields });
  if (informs) await createTriggerEdges(cs, view, decision, [informs]);
  return cs.transitionResult(next, action, {
    decided_option_uid: option.uid,
    decided_on_edge_uid: decidedOn.uid,
    replaced_decided_on: seen.length ? seen[0].uid : null,
  });
});

function readDecidedOnFields(body: Body): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of ['as_of_date', 'session_id', 'retrieval_trace_id']) {
    const v = readString(body, f, { max: 1000 });
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/** `get_open`: live open decisions, newest first. */
const getOpen = reads(async (body, view) => {
  const limit = readListLimit(body);
  const items = await view.findNodes({ node_types: DECISION, props_in: { status: OPEN_DECISION_STATUSES } }, { limit, offset: 0 }, 'created_desc');
  return readResult(items.items);
});

/** REFERENCE §4.8 `/intent/deliberation`. */
export const INTENT_DELIBERATION: EndpointDef = {
  path: 'intent/deliberation',
  actions: {
    open_decision: createAction({
      nodeType: 'Decision',
      defaults: ({ label }) => ({ question: label, status: 'open' }),
      triggers: [{ field: 'related_uids', edge: 'RelevantTo', dir: 'out', arity: 'many' }],
    }),
    add_option: createAction({
      nodeType: 'Option',
      defaults: ({ label }) => ({ description: label }),
      triggers: [
        { field: 'decision_uid', edge: 'HasOption', dir: 'in', arity: 'one', required: true, types: DECISION },
        { field: 'informs_uid', edge: 'Informs', dir: 'out', arity: 'one_or_many' },
      ],
    }),
    add_constraint: createAction({
      nodeType: 'Constraint',
      defaults: ({ label }) => ({ description: label, hard: true }),
      triggers: [
        { field: 'decision_uid', edge: 'ConstrainedBy', dir: 'in', arity: 'one', required: true, types: DECISION },
        { field: 'blocks_uid', edge: 'Blocks', dir: 'out', arity: 'one_or_many' },
      ],
    }),
    resolve,
    get_open: getOpen,
  },
};

