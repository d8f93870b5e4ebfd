import { Errors } from '../errors';
import { decideUpdateNode } from '../graph';
import { NodeRecord } from '../records';
import { Body, readPage, readString, readUid } from '../validation';
import { ActionDef, EndpointDef, reads, writes } from './action';
import { CognitiveView } from './cognitive-view';
import { createAction } from './create-action';
import { ActionContext, ChangeSet, readResult } from './decision';
import { paginated } from './node-list';
import { loadLive } from './triggers';
import { actorOf } from './actor';
import { requirePresent } from './required';
import { nextSkillStatus, SKILL_TRANSITIONS, SkillMove, SkillStatus } from './skill-lifecycle';

const SKILL = ['Skill'] as const;
const SKILL_STATUSES = Object.keys(SKILL_TRANSITIONS) as SkillStatus[];

async function liveSkill(body: Body, view: CognitiveView): Promise<NodeRecord> {
  const uid = readUid(body, 'skill_uid', { required: true })!;
  return (await loadLive(view, [{ uid, field: 'skill_uid', types: SKILL }]))[0];
}

/**
 * A lifecycle move. `fields` reads the move's own request fields (before any lookup) and
 * returns the props it sets; `successor` is an optional Skill that supersedes this one.
 */
function move(kind: SkillMove, fields: (body: Body, ctx: ActionContext) => Record<string, unknown>, withSuccessor = false): ActionDef {
  return writes(async (body, view, ctx, action) => {
    requirePresent(body, kind === 'reject' ? ['skill_uid', 'reason'] : ['skill_uid']);
    const reason = readString(body, 'reason', { max: 10_000 });
    const props = fields(body, ctx);
    const successorUid = withSuccessor ? readUid(body, 'superseded_by_uid') : undefined;
    const skill = await liveSkill(body, view);
    const successor = successorUid ? (await loadLive(view, [{ uid: successorUid, field: 'superseded_by_uid', types: SKILL }]))[0] : undefined;
    const from = String(skill.props.status ?? 'candidate');
    const to = nextSkillStatus(from, kind);
    if (successor) {
      if (successor.uid === skill.uid) throw Errors.invalidField('superseded_by_uid', 'a skill cannot supersede itself', { uid: successor.uid });
      if (successor.props.status !== 'approved')
        throw Errors.invalidField('superseded_by_uid', `superseded_by_uid must name an approved Skill (it is ${String(successor.props.status)})`, {
          uid: successor.uid,
        });
      props.superseded_by_uid = successor.uid;
    }
    const cs = new ChangeSet(ctx);
    const next = decideUpdateNode(skill, { props: { ...props, status: to } }, ctx, { allowSkillStatus: true });
    cs.updateNode(next, reason ? `${action}: ${reason}` : action);
    if (successor) cs.edge(successor, next, 'Supersedes');
    return cs.transitionResult(next, action, { from_status: from });
  });
}

/** `get`: the skill, what it was derived from, and its supersession links. */
const get = reads(async (body, view) => {
  const skill = await liveSkill(body, view);
  const sources: NodeRecord[] = [];
  for (const e of await view.edges({ from_uid: skill.uid, edge_types: ['DerivedFrom', 'Summarizes'] })) {
    const n = await view.node(e.to_uid);
    if (n && n.tombstone_at === null && !sources.some((s) => s.uid === n.uid)) sources.push(n);
  }
  const supersedes = (await view.edges({ from_uid: skill.uid, edge_types: ['Supersedes'] })).map((e) => e.to_uid);
  let supersededBy = typeof skill.props.superseded_by_uid === 'string' ? skill.props.superseded_by_uid : null;
  if (!supersededBy) {
    const incoming = await view.edges({ to_uid: skill.uid, edge_types: ['Supersedes'] });
    supersededBy = incoming.length ? incoming[0].from_uid : null;
  }
  return readResult({ skill, sources, supersedes: [...new Set(supersedes)], superseded_by: supersededBy });
});

/** `list`: live Skills, most recently changed first, optionally by status. */
const list = reads(async (body, view) => {
  const page = readPage(body, { limit: 50, max: 1000 });
  const raw = body.status;
  let statuses: string[] | undefined;
  if (raw !== undefined && raw !== null) {
    statuses = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((s) => typeof s === 'string') ? (raw as string[]) : undefined;
    if (!statuses) throw Errors.invalidField('status', 'status must be a string or an array of strings');
    const bad = statuses.find((s) => !SKILL_STATUSES.includes(s as SkillStatus));
    if (bad !== undefined) throw Errors.invalidField('status', `unknown skill status '${bad}'; valid: ${SKILL_STATUSES.join(', ')}`, { allowed: SKILL_STATUSES });
  }
  const r = await view.findNodes({ node_types: SKILL, ...(statuses ? { props_in: { status: statuses } } : {}) }, page, 'updated_desc');
  return readResult(paginated(r.items, r.has_more, page));
});

/** REFERENCE §4.11 `/action/skill`. */
export const ACTION_SKILL: EndpointDef = {
  path: 'action/skill',
  actions: {
    propose: createAction({
      nodeType: 'Skill',
      defaults: ({ label }) => ({ name: label }),
      overrides: ({ ctx }) => ({ proposed_by: actorOf(ctx) }),
      triggers: [
        { field: 'source_uids', edge: 'DerivedFrom', dir: 'out', arity: 'many', setProp: 'source_node_uids' },
        { field: 'supersedes_uid', edge: 'Supersedes', dir: 'out', arity: 'one', types: SKILL },
      ],
      extras: () => ({ status: 'candidate' }),
    }),
    review: move('review', (body, ctx) => ({
      reviewed_by: actorOf(ctx),
      reviewed_at: ctx.now,
      review_notes: readString(body, 'notes', { max: 10_000 }) ?? null,
    })),
    approve: move('approve', (_body, ctx) => ({ approved_by: actorOf(ctx), approved_at: ctx.now })),
    reject: move('reject', (body) => ({ rejected_reason: readString(body, 'reason', { required: true, max: 10_000 }) })),
    deprecate: move(
      'deprecate',
      (body, ctx) => ({ deprecated_at: ctx.now, deprecated_reason: readString(body, 'reason', { max: 10_000 }) ?? null }),
      true,
    ),
    get,
    list,
  },
};
