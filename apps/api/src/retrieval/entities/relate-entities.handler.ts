import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { readEdgeInput } from '@strata/domain/graph';
import { Errors } from '@strata/domain/errors';
import { Body, present, readUid } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { createEdge } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScope } from '@strata/platform/scope/read-scope';

export class RelateEntitiesCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body, readonly scope: ReadScope) {}
}

/** `/reality/entity relate`: source → target of the given type (props untagged, §4.2). */
@CommandHandler(RelateEntitiesCommand)
export class RelateEntitiesHandler implements ICommandHandler<RelateEntitiesCommand> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  execute({ ctx, body, scope }: RelateEntitiesCommand) {
    // §4.0 order: required fields, then types and props, then uid syntax
    for (const f of ['source_uid', 'target_uid', 'edge_type']) if (!present(body, f)) throw Errors.missingField(f);
    const input = readEdgeInput(body, { cognitive: true });
    const source = readUid(body, 'source_uid', { required: true })!;
    const target = readUid(body, 'target_uid', { required: true })!;
    const refs = [
      { uid: source, field: 'source_uid' },
      { uid: target, field: 'target_uid' },
    ];
    return this.uow.run(ctx, async (tx) => {
      scope.assertVisible(refs); // §4.0 step 7: outside the caller's grants reads as missing
      const [from, to] = await tx.liveNodes(refs);
      const e = createEdge(tx, input, from, to);
      return { uid: e.uid, edge_type: e.edge_type, source_uid: e.from_uid, target_uid: e.to_uid, layer: e.layer, version: e.version };
    });
  }
}
