import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Errors } from '@strata/domain/errors';
import { Body, readBoolean, readString } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { restoreEdge, restoreNode, tombstoneEdge, tombstoneNode, updateNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { EvolveWriteAction } from './evolve-actions';

export class EvolveCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly action: EvolveWriteAction,
    readonly uid: string,
    readonly body: Body,
    readonly scope: ReadScope,
  ) {}
}

const DEFAULT_UPDATE_REASON = 'updated via /evolve';

/** The versioned `/evolve` writes (REFERENCE §7.1), each one atomic append. */
@CommandHandler(EvolveCommand)
export class EvolveHandler implements ICommandHandler<EvolveCommand> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  execute({ ctx, action, uid, body, scope }: EvolveCommand) {
    const reason = readString(body, 'reason', { max: 1000 }) ?? null;
    const cascade = action === 'tombstone_cascade' || (action === 'tombstone' && (readBoolean(body, 'cascade') ?? false));
    return this.uow.run(ctx, async (tx) => {
      const hidden = () => Errors.notFound(`${action.endsWith('_edge') ? 'edge' : 'node'} ${uid} not found`, { uid });
      if (action === 'tombstone_edge' || action === 'restore_edge') {
        const e = await tx.edge(uid);
        if (!e || !scope.allows(e.from_uid) || !scope.allows(e.to_uid)) throw hidden();
        const r = action === 'tombstone_edge' ? await tombstoneEdge(tx, uid, reason) : await restoreEdge(tx, uid, reason);
        return { uid, action, version: r.edge.version };
      }
      const current = await tx.node(uid);
      if (!current || !scope.allows(uid)) throw hidden();
      switch (action) {
        case 'update':
          return updateNode(tx, current, body, reason ?? DEFAULT_UPDATE_REASON, { propsField: 'props_patch' });
        case 'tombstone':
        case 'tombstone_cascade': {
          const r = await tombstoneNode(tx, uid, { reason, cascade, counted: (e) => scope.allowsEdge(e) });
          return { uid, action, version: r.node.version, edges_tombstoned: r.edges_tombstoned };
        }
        case 'restore': {
          const r = await restoreNode(tx, uid, reason, (e) => scope.allowsEdge(e));
          return { uid, action, version: r.node.version, edges_restored: r.edges_restored };
        }
      }
    });
  }
}
