import type { NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { inSameSpaces } from '@strata/platform/scope/space-membership';
import { txMembership } from '@strata/platform/scope/space-write-rule';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { compileSchema, COGNITIVE_REQUEST_FIELDS, flattenedProps, getNodeType, isPlainObject, normaliseText } from '@strata/domain/catalogue';
import { Errors } from '@strata/domain/errors';
import { decideCreateNode, decideNodeAliases, GraphChanges } from '@strata/domain/graph';
import { NodeRecord } from '@strata/domain/records';
import { pickAliasMatch, planEntityCreation } from '@strata/domain/retrieval';
import { Body, readString } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { stageAlias } from './alias-ops';

/** `/reality/entity create`'s request shape: `entity_type` picks the type and is never a flattened field. */
const ENTITY_CREATE_FIELDS: ReadonlySet<string> = new Set([...COGNITIVE_REQUEST_FIELDS, 'entity_type']);

export class FindOrCreateEntityCommand {
  /** `scope`: only nodes the caller may see are found (§1.8); others never match nor gain an alias */
  constructor(readonly ctx: CommandContext, readonly body: Body, readonly scope: ReadScope) {}
}

export type FindOrCreateResult = NodeRecord & { created: boolean; matched_by: 'alias' | 'label' | null };

/**
 * `/reality/entity create` (REFERENCE §4.2): find-or-create over the WHOLE resolved type —
 * a matching alias first (highest score, then oldest node), then a matching normalised label
 * (an index look-up, no sampling), else a new node; the label becomes an alias (1.0). A
 * Space/Project-scoped caller only finds nodes inside its grants: what it cannot see does not exist.
 */
@CommandHandler(FindOrCreateEntityCommand)
export class FindOrCreateEntityHandler implements ICommandHandler<FindOrCreateEntityCommand, FindOrCreateResult> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  execute({ ctx, body, scope }: FindOrCreateEntityCommand): Promise<FindOrCreateResult> {
    const label = readString(body, 'label', { required: true, trim: true, max: 1000 })!;
    const norm = normaliseText(label);
    if (!norm) throw Errors.invalidField('label', 'label must contain at least one letter or digit to be matched');
    // §2.8: the product's clients may send `entity_type` (and other props) beside the label
    const given = body.props;
    const typed =
      body.entity_type !== undefined && (given === undefined || given === null || (isPlainObject(given) && given.entity_type === undefined))
        ? { ...(isPlainObject(given) ? given : {}), entity_type: body.entity_type }
        : given;
    const plan = planEntityCreation(label, typed);
    // the request shape only: every other key the call reads is a flattened props field
    const input: Body = { props: plan.props };
    for (const f of COGNITIVE_REQUEST_FIELDS) if (f !== 'props' && body[f] !== undefined) input[f] = body[f];
    const def = getNodeType(plan.node_type)!;
    Object.assign(input, flattenedProps(body, compileSchema(def).byName, plan.node_type, ENTITY_CREATE_FIELDS));
    return this.uow.run(ctx, async (tx) => {
      // validate the whole create first: bad input is a 4xx even when the entity exists
      const aliasTexts: string[] = [];
      const fresh = decideCreateNode(input, tx.uuid(), tx.write, {
        forcedType: plan.node_type,
        propsDefaults: plan.defaults,
        nodeAliases: aliasTexts,
        flattenExcept: ENTITY_CREATE_FIELDS,
      });
      // a name the client gave besides the label (§2.8 canonical_name) matches the node too
      const named = decideNodeAliases(fresh, aliasTexts);

      // only a node in the same Spaces as the one this request would create matches (REFERENCE §13.1)
      const membership = txMembership(tx);
      const placement = tx.placement?.space_uid ?? null;
      const sameSpaces = (uid: string) => inSameSpaces(membership, uid, placement);
      const aliases = await tx.reader.aliasesByNorm(tx.org, norm);
      const owners = await tx.reader.getNodes(tx.org, aliases.map((a) => a.canonical_uid));
      const candidates = aliases
        .map((a) => ({ ...a, node: owners.get(a.canonical_uid) }))
        .filter((a) => a.node && a.node.tombstone_at === null && a.node.node_type === plan.node_type && scope.allows(a.canonical_uid));
      const placed: typeof candidates = [];
      for (const a of candidates) if (await sameSpaces(a.canonical_uid)) placed.push(a);
      const byAlias = pickAliasMatch(placed.map((a) => ({ canonical_uid: a.canonical_uid, score: a.score, node_created_at: a.node!.created_at, node: a.node! })));
      if (byAlias) return { ...byAlias.node, created: false, matched_by: 'alias' as const };

      const byLabel = await tx.reader.listNodes(tx.org, scope.nodeFilter<NodeFilter>({ node_types: [plan.node_type], label_norm: norm }), { limit: 100, offset: 0 }, 'created_asc');
      let labelMatch: string | null = null;
      for (const n of byLabel.items)
        if (await sameSpaces(n.uid)) {
          labelMatch = n.uid;
          break;
        }
      if (labelMatch !== null) {
        const node = (await tx.node(labelMatch))!;
        await stageAlias(tx, node, label, norm, 1.0);
        return { ...node, created: false, matched_by: 'label' as const };
      }

      tx.emit(GraphChanges.nodeCreated(tx.org, fresh));
      await stageAlias(tx, fresh, label, norm, 1.0);
      for (const a of named) if (a.norm !== norm) await stageAlias(tx, fresh, a.text, a.norm, a.score);
      return { ...fresh, created: true, matched_by: null };
    });
  }
}
