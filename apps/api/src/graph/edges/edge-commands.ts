import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Errors } from '@strata/domain/errors';
import { decideUpdateEdge, readEdgeInput, GraphChanges } from '@strata/domain/graph';
import { EdgeRecord } from '@strata/domain/records';
import { Body, readString, readUid } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { createEdge, tombstoneEdge } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';

export class CreateEdgeCommand {
  /** `link` takes no props (default props); `edge` takes full EdgeProps */
  constructor(readonly ctx: CommandContext, readonly body: Body, readonly kind: 'link' | 'edge') {}
}
export class UpdateEdgeCommand {
  constructor(readonly ctx: CommandContext, readonly uid: string, readonly body: Body) {}
}
export class DeleteEdgeCommand {
  constructor(readonly ctx: CommandContext, readonly uid: string, readonly reason: string | null) {}
}

@CommandHandler(CreateEdgeCommand)
export class CreateEdgeHandler implements ICommandHandler<CreateEdgeCommand, EdgeRecord> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}
  execute({ ctx, body, kind }: CreateEdgeCommand): Promise<EdgeRecord> {
    if (kind === 'link' && (body.edge_type === undefined || body.edge_type === null)) throw Errors.missingField('edge_type');
    // validation order: fields and props first, then uids, then liveness (§4.0)
    const input = readEdgeInput(body, { allowProps: kind === 'edge' });
    const fromUid = readUid(body, 'from_uid', { required: true })!;
    const toUid = readUid(body, 'to_uid', { required: true })!;
    return this.uow.run(ctx, async (tx) => {
      const [from, to] = await tx.liveNodes([
        { uid: fromUid, field: 'from_uid' },
        { uid: toUid, field: 'to_uid' },
      ]);
      return createEdge(tx, input, from, to);
    });
  }
}

@CommandHandler(UpdateEdgeCommand)
export class UpdateEdgeHandler implements ICommandHandler<UpdateEdgeCommand, EdgeRecord> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}
  execute({ ctx, uid, body }: UpdateEdgeCommand): Promise<EdgeRecord> {
    return this.uow.run(ctx, async (tx) => {
      const current = await tx.edge(uid);
      if (!current) throw Errors.notFound(`edge ${uid} not found`, { uid });
      const reason = readString(body, 'reason', { max: 1000 }) ?? null;
      const changed = decideUpdateEdge(current, body, tx.write);
      tx.emit(GraphChanges.edgeChanged(tx.org, 'EdgeUpdated', changed, reason));
      return changed;
    });
  }
}

@CommandHandler(DeleteEdgeCommand)
export class DeleteEdgeHandler implements ICommandHandler<DeleteEdgeCommand> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}
  execute({ ctx, uid, reason }: DeleteEdgeCommand) {
    return this.uow.run(ctx, async (tx) => {
      const r = await tombstoneEdge(tx, uid, reason);
      return { uid, tombstoned: true, version: r.edge.version };
    });
  }
}
