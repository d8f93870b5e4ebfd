import { Errors } from '../errors';
import { decideUpdateNode } from '../graph';
import { Body, readBoolean, readString } from '../validation';
import { EndpointDef, reads, writes } from './action';
import { allNodes } from './cognitive-view';
import { createAction, planCreate, readLabel, sentProps } from './create-action';
import { ChangeSet, readResult } from './decision';
import { readListLimit } from './node-list';
import { oldestInPlacement } from './upsert-match';

const PREFERENCE = ['Preference'] as const;
const UPSERTED_FIELDS = ['value', 'preference_type', 'learned', 'explicit'] as const;

/** The preference key: props.key, falling back to the label (REFERENCE §4.14). */
function preferenceKey(props: Record<string, unknown>, label: string): string {
  return typeof props.key === 'string' && props.key.trim() !== '' ? props.key : label;
}

/** `set_preference`: upsert by exact key; an update bumps evidence_count and the version. */
const setPreference = writes(async (body, view, ctx, action) => {
  const label = readLabel(body);
  const props = sentProps(body, 'Preference');
  if (props.value === undefined || props.value === null) throw Errors.missingField('props.value');
  const key = preferenceKey(props, label);
  // validates everything (types, unknown props) exactly as a create would, before any lookup
  const { cs, node } = await planCreate({ nodeType: 'Preference', defaults: () => ({ key }) }, body, view, ctx);
  const existing = await oldestInPlacement(await allNodes(view, { node_types: PREFERENCE, props_equals: { key } }, 'created_desc'), ctx);
  if (!existing) return cs.createResult(node, action, { key, value: node.props.value, created: true });

  const patch: Record<string, unknown> = {};
  for (const f of UPSERTED_FIELDS) if (props[f] !== undefined && props[f] !== null) patch[f] = node.props[f];
  patch.evidence_count = (typeof existing.props.evidence_count === 'number' ? existing.props.evidence_count : 0) + 1;
  const update = new ChangeSet(ctx);
  const next = update.updateNode(decideUpdateNode(existing, { props: patch }, ctx), action);
  return update.transitionResult(next, action, { key, value: next.props.value, created: false });
});

/** `get_preferences`: live Preferences by salience, then most recently changed. */
const getPreferences = reads(async (body, view) => {
  const limit = readListLimit(body);
  const key = readString(body, 'key', { max: 1000 });
  const page = await view.findNodes({ node_types: PREFERENCE, ...(key !== undefined ? { props_equals: { key } } : {}) }, { limit, offset: 0 }, 'salience_desc');
  return readResult(page.items);
});

/** `get_policies`: live MemoryPolicies, newest first. */
const getPolicies = reads(async (body, view) => {
  const limit = readListLimit(body);
  const activeOnly = readBoolean(body, 'active_only') ?? false;
  const target = readString(body, 'target_node_type', { max: 200 });
  const props_equals: Record<string, unknown> = {};
  if (activeOnly) props_equals.active = true;
  if (target !== undefined) props_equals.target_node_type = target;
  const page = await view.findNodes({ node_types: ['MemoryPolicy'], props_equals }, { limit, offset: 0 }, 'created_desc');
  return readResult(page.items);
});

/** REFERENCE §4.14 `/memory/config`. */
export const MEMORY_CONFIG: EndpointDef = {
  path: 'memory/config',
  actions: {
    set_preference: setPreference,
    get_preferences: getPreferences,
    set_policy: createAction({ nodeType: 'MemoryPolicy', defaults: () => ({ active: true }) }),
    get_policies: getPolicies,
  },
};
