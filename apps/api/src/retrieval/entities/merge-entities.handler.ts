import { GraphChanges } from '@strata/domain/graph';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Errors } from '@strata/domain/errors';
import { assertMergeableTypes, decideMerge } from '@strata/domain/retrieval';
import { Body, readString, readUid } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { stageAliasRemoval } from './alias-ops';
import { Streams } from '@strata/domain/events';

export class MergeEntitiesCommand {
  /** `scope`: what the caller may see; a uid outside it is a 404, like a missing node (§1.8) */
  constructor(readonly ctx: CommandContext, readonly body: Body, readonly scope: ReadScope) {}
}

export interface MergeResult {
  keep_uid: string;
  merge_uid: string;
  edges_retargeted: number;
  edges_dropped: number;
  aliases_merged: number;
  alias_added: boolean;
  keep_version: number;
}

/** `POST /entities/merge` and `/reality/entity merge` (REFERENCE §8.5): one atomic append. */
@CommandHandler(MergeEntitiesCommand)
export class MergeEntitiesHandler implements ICommandHandler<MergeEntitiesCommand, MergeResult> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  execute({ ctx, body, scope }: MergeEntitiesCommand): Promise<MergeResult> {
    const keepUid = readUid(body, 'keep_uid', { required: true })!;
    const mergeUid = readUid(body, 'merge_uid', { required: true })!;
    readString(body, 'reason', { max: 1000 });
    if (keepUid === mergeUid) throw Errors.invalidField('merge_uid', 'keep_uid and merge_uid must differ: a node cannot be merged into itself');
    const refs = [
      { uid: keepUid, field: 'keep_uid' },
      { uid: mergeUid, field: 'merge_uid' },
    ];
    return this.uow.run(ctx, async (tx) => {
      scope.assertVisible(refs); // before the type check: an invisible node's type is not revealed
      const [keep, merge] = await tx.liveNodes(refs);
      assertMergeableTypes(keep, merge);
      const [mergeEdges, keepEdges, keepAliases, mergeAliases] = await Promise.all([
        tx.edges({ touching: mergeUid }),
        tx.edges({ touching: keepUid }),
        tx.reader.aliasesOf(tx.org, keepUid),
        tx.reader.aliasesOf(tx.org, mergeUid),
      ]);
      const plan = decideMerge({ keep, merge, mergeEdges, keepEdges, keepAliases, mergeAliases }, tx.write, (e) => scope.allowsEdge(e));
      for (const c of plan.edgeChanges) tx.emit(GraphChanges.edgeChanged(tx.org, c.type, c.edge, c.reason));
      for (const a of plan.keepAliasSets)
        tx.emit(Streams.node(tx.org, keepUid), 'AliasSet', { text: a.text, norm: a.norm, canonical_uid: keepUid, score: a.score, created_at: a.created_at });
      for (const norm of plan.mergeAliasRemovals) stageAliasRemoval(tx, mergeUid, norm);
      tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeTombstoned', plan.mergedNode, plan.mergedNode.tombstone_reason));
      return {
        keep_uid: keepUid,
        merge_uid: mergeUid,
        ...plan.counts,
        keep_version: keep.version,
      };
    });
  }
}
