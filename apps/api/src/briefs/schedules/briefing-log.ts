import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { BriefingEventOut, BriefingStreams } from '@strata/domain/briefs';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { BriefsReadModel, BriefingScheduleRow } from '@strata/projections/briefs/briefs-read-model';

/** A system process's command context (ticker, run job). */
export function systemContext(org: string, requestId: string): CommandContext {
  return { org, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: requestId };
}

/**
 * Appends briefing decisions to a schedule's stream, decided inside the unit of work against the
 * schedule as the read model has it then, with the stream's expected revision: two replicas (or
 * a route and the ticker) deciding on the same schedule cannot both append.
 */
@Injectable()
export class BriefingLog {
  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    readonly briefs: BriefsReadModel,
  ) {}

  /** `decide` sees the schedule (null: none yet or deleted) and returns the events and a result. */
  run<T>(ctx: CommandContext, scheduleId: string, decide: (row: BriefingScheduleRow | null, tx: GraphTx) => { events: BriefingEventOut[]; result: T }): Promise<T> {
    return this.uow.run(ctx, async (tx) => {
      const row = this.briefs.schedule(ctx.org, scheduleId);
      const { events, result } = decide(row, tx);
      const stream = BriefingStreams.schedule(ctx.org, scheduleId);
      let first = true;
      for (const e of events) {
        // the expected revision is checked once per stream, on its first staged event
        tx.emit({ stream, ...e }, first ? (row ? row.revision : 'no_stream') : 'any');
        first = false;
      }
      return result;
    });
  }
}
