import { randomUUID } from 'node:crypto';
import type { LlmUsageAttribution, LlmUsageEntry, LlmUsageRecorder } from '@strata/ai';
import { AccountEventTypes, LlmUsageRecordedData } from '@strata/domain/accounts';
import { Streams } from '@strata/domain/events';
import { SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import type { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import type { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';

/**
 * Records a metered model call as an `LlmUsageRecorded` event on the organization's stream,
 * in its own unit of work (the call was made outside any: handlers call providers first), so
 * `GET /v1/usage` shows it once this resolves and a rebuild gives it back.
 */
export class AccountsLlmUsageRecorder implements LlmUsageRecorder {
  constructor(private readonly uow: UnitOfWork) {}

  async record(org: string, entry: LlmUsageEntry, who: LlmUsageAttribution = {}): Promise<void> {
    const ctx = {
      org,
      principal: who.principal ?? SYSTEM_PRINCIPAL,
      credential_id: null,
      agent_id: who.agentId ?? null,
      request_id: who.requestId ?? randomUUID(),
    };
    await this.uow.run(ctx, async (tx) => stageLlmUsage(tx, org, entry));
  }
}

/** `LlmUsageRecorded` for a metered call, staged in the caller's unit of work (a caller that records its calls itself). */
export function stageLlmUsage(tx: Pick<GraphTx, 'emit' | 'now'>, org: string, entry: LlmUsageEntry): void {
  const data: LlmUsageRecordedData = {
    org_id: org,
    provider: entry.provider,
    model: entry.model,
    input_tokens: Math.max(0, Math.round(entry.inputTokens)),
    output_tokens: Math.max(0, Math.round(entry.outputTokens)),
    at: tx.now,
  };
  tx.emit(Streams.org(org), AccountEventTypes.LlmUsageRecorded, data);
}
