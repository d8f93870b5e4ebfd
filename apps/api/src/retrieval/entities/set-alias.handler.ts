import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { stageAlias } from './alias-ops';

export class SetAliasCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly canonicalUid: string,
    readonly text: string,
    readonly norm: string,
    readonly score: number,
    /** what the caller may see: an alias of a node outside it is a 404 (§1.8) */
    readonly scope: ReadScope,
  ) {}
}

export interface SetAliasResult {
  text: string;
  canonical_uid: string;
  score: number;
  created_at: number;
  created: boolean;
}

/** Upserts an alias of a live node; an existing (text, node) pair has its score replaced. */
@CommandHandler(SetAliasCommand)
export class SetAliasHandler implements ICommandHandler<SetAliasCommand, SetAliasResult> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  execute({ ctx, canonicalUid, text, norm, score, scope }: SetAliasCommand): Promise<SetAliasResult> {
    return this.uow.run(ctx, async (tx) => {
      scope.assertVisible([{ field: 'canonical_uid', uid: canonicalUid }]);
      const node = await tx.liveNode(canonicalUid, 'canonical_uid');
      const r = await stageAlias(tx, node, text, norm, score);
      return { text, canonical_uid: canonicalUid, score, created_at: r.created_at, created: r.created };
    });
  }
}
