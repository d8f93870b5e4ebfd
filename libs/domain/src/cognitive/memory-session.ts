import { decideUpdateNode } from '../graph';
import { readUid } from '../validation';
import { EndpointDef, writes } from './action';
import { createAction } from './create-action';
import { ChangeSet } from './decision';
import { readPropsPatch } from './props-patch';
import { requirePresent } from './required';
import { loadLive } from './triggers';

const SESSION = ['Session'] as const;

/** `close`: ended_at = now (focus_summary may be merged); closing a closed session is a no-op. */
const close = writes(async (body, view, ctx, action) => {
  requirePresent(body, ['session_uid']);
  const patch = readPropsPatch(body, 'Session');
  const uid = readUid(body, 'session_uid', { required: true })!;
  const [session] = await loadLive(view, [{ uid, field: 'session_uid', types: SESSION }]);
  const cs = new ChangeSet(ctx);
  const endedAt = session.props.ended_at;
  if (typeof endedAt === 'number') {
    return cs.transitionResult(session, action, { started_at: session.props.started_at ?? null, ended_at: endedAt, already_closed: true });
  }
  const props: Record<string, unknown> = { ended_at: ctx.now };
  if (patch.focus_summary !== undefined) props.focus_summary = patch.focus_summary;
  const next = cs.updateNode(decideUpdateNode(session, { props }, ctx), action);
  return cs.transitionResult(next, action, { started_at: next.props.started_at ?? null, ended_at: ctx.now, already_closed: false });
});

/** REFERENCE §4.12 `/memory/session`. */
export const MEMORY_SESSION: EndpointDef = {
  path: 'memory/session',
  actions: {
    open: createAction({
      nodeType: 'Session',
      defaultLabel: 'Session',
      defaults: ({ ctx }) => ({ started_at: ctx.now }),
      overrides: () => ({ ended_at: null }),
      extras: (n) => ({ started_at: n.props.started_at }),
    }),
    trace: createAction({
      nodeType: 'Trace',
      defaultLabel: 'Trace',
      defaults: ({ ctx }) => ({ started_at: ctx.now }),
      overrides: ({ trigger }) => ({ entry_count: trigger('relevant_node_uids')?.uids.length ?? 0 }),
      triggers: [
        { field: 'session_uid', edge: 'CapturedIn', dir: 'out', arity: 'one', required: true, types: SESSION, setProp: 'session_uid' },
        { field: 'relevant_node_uids', edge: 'TraceEntry', dir: 'out', arity: 'many', ordered: true },
      ],
    }),
    close,
    journal: createAction({
      nodeType: 'Journal',
      defaultLabel: 'Journal',
      defaults: ({ label }) => ({ content: label }),
      triggers: [
        { field: 'session_uid', edge: 'CapturedIn', dir: 'out', arity: 'one', types: SESSION, setProp: 'session_uid' },
        { field: 'relevant_node_uids', edge: 'RelevantTo', dir: 'out', arity: 'many' },
      ],
    }),
  },
};
