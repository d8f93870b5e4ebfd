import { compileSchema, getNodeType, isPropsAlias } from '../catalogue';
import { Errors } from '../errors';
import { decideCreateNode, LABEL_MAX } from '../graph';
import { NodeRecord } from '../records';
import { Body, present, readString } from '../validation';
import { EndpointDef, writes } from './action';
import type { BodyWarning } from './body-use';
import { ActionContext, ChangeSet } from './decision';
import { checkTriggerShapes, createTriggerEdges, parseTriggers, resolveTriggers, TriggerDef } from './triggers';

/** Targets of the claim (REFERENCE §4.4); every edge goes Claim → X. */
const CLAIM_TRIGGERS: readonly TriggerDef[] = [
  { field: 'refutes_uid', edge: 'Refutes', dir: 'out', arity: 'one_or_many' },
  { field: 'extends_uid', edge: 'Extends', dir: 'out', arity: 'one_or_many' },
  { field: 'supersedes_uid', edge: 'Supersedes', dir: 'out', arity: 'one_or_many' },
  { field: 'contradicts_uid', edge: 'Contradicts', dir: 'out', arity: 'one_or_many' },
  { field: 'source_uids', edge: 'ExtractedFrom', dir: 'out', arity: 'many', edgeProps: () => ({ method: 'manual' }) },
];

/** The request shape of an item; its other keys that are props fields of its type are flattened props (§2.8). */
const ITEM_FIELDS: ReadonlySet<string> = new Set(['label', 'summary', 'confidence', 'salience', 'props', 'privacy_level', 'privacy', 'agent_id']);

/** A nested item (`claim`, `evidence[i]`…): an object with a label. */
function readItem(value: unknown, name: string): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw Errors.invalidField(name, `${name} must be an object`);
  const item = value as Body;
  if (!present(item, 'label') || (typeof item.label === 'string' && item.label.trim() === '')) throw Errors.missingField(`${name}.label`);
  return item;
}

function readItems(body: Body) {
  if (!present(body, 'claim')) throw Errors.missingField('claim');
  const claim = readItem(body.claim, 'claim');
  let evidence: Body[] = [];
  if (present(body, 'evidence')) {
    if (!Array.isArray(body.evidence)) throw Errors.invalidField('evidence', 'evidence must be an array of objects');
    evidence = body.evidence.map((e, i) => readItem(e, `evidence[${i}]`));
  }
  const warrant = present(body, 'warrant') ? readItem(body.warrant, 'warrant') : undefined;
  const argument = present(body, 'argument') ? readItem(body.argument, 'argument') : undefined;
  return { claim, evidence, warrant, argument };
}

/**
 * The keys of an item the call will not use (it reads the request shape and the type's props
 * fields and aliases): reported as warnings rather than dropped (§2.8).
 */
function itemWarnings(item: Body, name: string, type: string): BodyWarning[] {
  const fields = compileSchema(getNodeType(type)!).byName;
  const out: BodyWarning[] = [];
  for (const k of Object.keys(item)) {
    if (k === 'agent_id') out.push({ field: `${name}.agent_id`, reason: 'attribution is per call: the top-level agent_id is used; ignored' });
    else if (!ITEM_FIELDS.has(k) && !fields.has(k) && !isPropsAlias(type, k)) out.push({ field: `${name}.${k}`, reason: `not a field of ${name} nor of ${type} props; ignored` });
  }
  return out;
}

function itemNode(item: Body, name: string, type: string, defaultField: string, top: Body, ctx: ActionContext): NodeRecord {
  const label = readString(item, 'label', { trim: true, max: LABEL_MAX, label: `${name}.label` })!;
  // attribution and privacy are per call; props fall back to the top-level props for the claim only
  const input: Body = { ...item, agent_id: undefined, privacy_level: item.privacy_level ?? top.privacy_level ?? top.privacy };
  return decideCreateNode(input, ctx.uuid(), ctx, { prefix: name, forcedType: type, propsDefaults: { [defaultField]: label }, flattenExcept: ITEM_FIELDS });
}

/** `/epistemic/argument`: a claim with its evidence, warrant and argument in one call. */
export const EPISTEMIC_ARGUMENT: EndpointDef = {
  path: 'epistemic/argument',
  single: 'argument',
  actions: {
    argument: writes(async (body, view, ctx) => {
      // 3–4. required items and shapes
      const items = readItems(body);
      checkTriggerShapes(body, CLAIM_TRIGGERS);
      readString(body, 'agent_id', { max: 128 });
      // 4–5. every node validated before any lookup
      const claimInput = present(items.claim, 'props') ? items.claim : { ...items.claim, props: body.props };
      const claim = itemNode(claimInput, 'claim', 'Claim', 'content', body, ctx);
      const evidence = items.evidence.map((e, i) => itemNode(e, `evidence[${i}]`, 'Evidence', 'description', body, ctx));
      const warrant = items.warrant ? itemNode(items.warrant, 'warrant', 'Warrant', 'principle', body, ctx) : null;
      const argument = items.argument ? itemNode(items.argument, 'argument', 'Argument', 'summary', body, ctx) : null;
      // 6–8. targets
      const { triggers } = await resolveTriggers(view, parseTriggers(body, CLAIM_TRIGGERS));

      const cs = new ChangeSet(ctx);
      for (const n of [claim, ...evidence, warrant, argument]) if (n) cs.createNode(n);
      for (const e of evidence) cs.edge(e, claim, 'Supports');
      if (warrant) cs.edge(claim, warrant, 'HasWarrant');
      if (argument) {
        cs.edge(argument, claim, 'HasConclusion');
        evidence.forEach((e, i) => cs.edge(argument, e, 'HasPremise', { order: i + 1 }));
      }
      await createTriggerEdges(cs, view, claim, triggers);
      const warnings = [
        ...itemWarnings(items.claim, 'claim', 'Claim'),
        ...items.evidence.flatMap((e, i) => itemWarnings(e, `evidence[${i}]`, 'Evidence')),
        ...(items.warrant ? itemWarnings(items.warrant, 'warrant', 'Warrant') : []),
        ...(items.argument ? itemWarnings(items.argument, 'argument', 'Argument') : []),
      ];
      return cs.respond(201, {
        claim_uid: claim.uid,
        evidence_uids: evidence.map((e) => e.uid),
        warrant_uid: warrant?.uid ?? null,
        argument_uid: argument?.uid ?? null,
        edges_created: cs.edgesCreated.length,
        edges: cs.edgeSummaries(),
        ...(warnings.length ? { warnings } : {}),
      });
    }),
  },
};
