import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Errors } from '@strata/domain/errors';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { Body, readString } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { createNode, tombstoneNode, updateNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';

export class CreateNodeCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}
export class UpdateNodeCommand {
  constructor(readonly ctx: CommandContext, readonly uid: string, readonly body: Body) {}
}
export class DeleteNodeCommand {
  /** `counted`: the edges a scoped caller may see, the only ones `edges_tombstoned` counts */
  constructor(
    readonly ctx: CommandContext,
    readonly uid: string,
    readonly reason: string | null,
    readonly counted: (e: EdgeRecord) => boolean = () => true,
  ) {}
}

@CommandHandler(CreateNodeCommand)
export class CreateNodeHandler implements ICommandHandler<CreateNodeCommand, NodeRecord> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}
  execute({ ctx, body }: CreateNodeCommand): Promise<NodeRecord> {
    // the plan's node limit is checked by the unit of work for every write (nodeLimitCheck)
    return this.uow.run(ctx, async (tx) => createNode(tx, body));
  }
}

@CommandHandler(UpdateNodeCommand)
export class UpdateNodeHandler implements ICommandHandler<UpdateNodeCommand, NodeRecord> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}
  execute({ ctx, uid, body }: UpdateNodeCommand): Promise<NodeRecord> {
    return this.uow.run(ctx, async (tx) => {
      const current = await tx.node(uid);
      if (!current) throw Errors.notFound(`node ${uid} not found`, { uid });
      const reason = readString(body, 'reason', { max: 1000 }) ?? null;
      return updateNode(tx, current, body, reason);
    });
  }
}

@CommandHandler(DeleteNodeCommand)
export class DeleteNodeHandler implements ICommandHandler<DeleteNodeCommand> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}
  execute({ ctx, uid, reason, counted }: DeleteNodeCommand) {
    return this.uow.run(ctx, async (tx) => {
      const r = await tombstoneNode(tx, uid, { reason, cascade: true, counted });
      return { uid, tombstoned: true, version: r.node.version, edges_tombstoned: r.edges_tombstoned };
    });
  }
}
