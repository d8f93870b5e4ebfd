import { AccountEventTypes, CreditsConsumedData } from '@strata/domain/accounts';
import { Streams } from '@strata/domain/events';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/**
 * Records ingestion credits used by this request (a `CreditsConsumed` event on the
 * organization's stream, committed with the request's other events). Check first with
 * `PlanLimits.assertCreditsAvailable(ctx, amount)`; `GET /v1/usage` shows the month's total.
 */
export function consumeCredits(tx: GraphTx, amount: number, reason: string): void {
  if (amount <= 0) return;
  const data: CreditsConsumedData = { org_id: tx.org, amount, reason, at: tx.now };
  tx.emit(Streams.org(tx.org), AccountEventTypes.CreditsConsumed, data);
}
