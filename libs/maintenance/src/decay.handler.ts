import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Principal, SalienceDecayedData, Streams } from '@strata/domain/events';
import { decideTombstoneEdge, decideTombstoneNode, GraphChanges } from '@strata/domain/graph';
import { AUTO_TOMBSTONE_REASON, DecayRequest, autoTombstoneEnabled, decideNodeDecay, readDecayRequest } from '@strata/domain/maintenance';
import { Body } from '@strata/domain/validation';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import type { MaintenanceReads } from '@strata/graph-store/maintenance-reads.port';
import { MAINTENANCE_STORE, MaintenanceStore } from './maintenance-store';

export interface DecayResult {
  nodes_decayed: number;
  below_threshold: number;
  /** null when auto-tombstone did not run */
  auto_tombstoned: number | null;
  dry_run: boolean;
}

/** The decay event also says who asked for it: the events themselves are the system's. */
export interface DecayEventData extends SalienceDecayedData {
  requested_by: Principal;
}

/**
 * Salience decay over the live nodes in scope (REFERENCE §7.2), staged on `tx`: the new
 * saliences as ONE SalienceDecayed event (not versioned, updated_at unchanged), then the
 * auto-tombstones with cascade. `uids` narrows the scope (`/evolve decay` with a uid).
 * Run it with a system context: tombstones and their version records are the system's.
 */
export async function decayGraph(
  tx: GraphTx,
  reads: Pick<MaintenanceReads, 'decayCandidates'>,
  req: DecayRequest,
  requestedBy: Principal,
  uids?: string[],
): Promise<DecayResult> {
  const candidates = await reads.decayCandidates(tx.org, { layer: req.layer, node_types: req.node_types, uids });
  const items: { uid: string; salience: number }[] = [];
  const doomed: { uid: string; salience: number }[] = [];
  let below = 0;
  for (const c of candidates) {
    const d = decideNodeDecay(c, req, tx.now);
    if (d.changed) items.push({ uid: c.uid, salience: d.salience });
    if (d.below_threshold) below++;
    if (d.auto_tombstone) doomed.push({ uid: c.uid, salience: d.salience });
  }
  const result: DecayResult = {
    nodes_decayed: items.length,
    below_threshold: below,
    auto_tombstoned: autoTombstoneEnabled(req) ? doomed.length : null,
    dry_run: req.dry_run,
  };
  if (req.dry_run || (items.length === 0 && doomed.length === 0)) return result;

  const data: DecayEventData = { items, at: tx.now, requested_by: requestedBy };
  tx.emit(Streams.graph(tx.org), 'SalienceDecayed', data);
  for (const { uid, salience } of doomed) {
    const current = (await tx.node(uid))!;
    // the tombstone record carries the decayed salience, or applying it would undo the decay
    const next = decideTombstoneNode({ ...current, salience }, AUTO_TOMBSTONE_REASON, tx.write, 'system')!;
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeTombstoned', next, AUTO_TOMBSTONE_REASON));
    // edge by edge through tx.edge (not tx.edges, which rescans every staged edge per call):
    // an edge shared with a node tombstoned earlier in this loop is already staged as tombstoned
    for (const stored of await tx.reader.listEdges(tx.org, { touching: uid })) {
      const t = decideTombstoneEdge((await tx.edge(stored.uid))!, `cascade:${uid}`, tx.write);
      if (t) tx.emit(GraphChanges.edgeChanged(tx.org, 'EdgeTombstoned', t, `cascade:${uid}`));
    }
  }
  return result;
}

export class DecayCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}

/** `POST /decay`. */
@CommandHandler(DecayCommand)
export class DecayHandler implements ICommandHandler<DecayCommand, DecayResult> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(MAINTENANCE_STORE) private readonly store: MaintenanceStore,
  ) {}

  execute({ ctx, body }: DecayCommand): Promise<DecayResult> {
    const req = readDecayRequest(body);
    // changed_by and tombstone_by read "system" (REFERENCE §1.6); the caller is kept in the event
    const systemCtx: CommandContext = { ...ctx, principal: SYSTEM_PRINCIPAL };
    return this.uow.run(systemCtx, (tx) => decayGraph(tx, this.store, req, ctx.principal));
  }
}
