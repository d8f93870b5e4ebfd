import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Errors } from '@strata/domain/errors';
import { readDecayRequest } from '@strata/domain/maintenance';
import { Body } from '@strata/domain/validation';
import { DecayResult, decayGraph } from '@strata/maintenance/decay.handler';
import { MAINTENANCE_STORE, MaintenanceStore } from '@strata/maintenance/maintenance-store';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScope } from '@strata/platform/scope/read-scope';

export class DecayNodeCommand {
  constructor(readonly ctx: CommandContext, readonly uid: string, readonly body: Body, readonly scope: ReadScope) {}
}

/**
 * `/evolve decay` with a uid: the same decay as `POST /decay`, narrowed to one live node
 * (the graph-wide case goes to the maintenance `DecayCommand`).
 */
@CommandHandler(DecayNodeCommand)
export class DecayNodeHandler implements ICommandHandler<DecayNodeCommand, DecayResult> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(MAINTENANCE_STORE) private readonly store: MaintenanceStore,
  ) {}

  execute({ ctx, uid, body, scope }: DecayNodeCommand): Promise<DecayResult> {
    const req = readDecayRequest(body);
    const systemCtx: CommandContext = { ...ctx, principal: SYSTEM_PRINCIPAL };
    return this.uow.run(systemCtx, async (tx) => {
      const n = await tx.node(uid);
      if (!n || n.tombstone_at !== null || !scope.allows(uid)) throw Errors.refNotFound('uid', uid);
      return decayGraph(tx, this.store, req, ctx.principal, [uid]);
    });
  }
}
