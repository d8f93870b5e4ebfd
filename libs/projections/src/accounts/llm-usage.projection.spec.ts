import Database from 'better-sqlite3';
import { AccountEventTypes as T, LlmUsageRecordedData } from '@strata/domain/accounts';
import { RecordedEvent, Streams } from '@strata/domain/events';
import { AccountsProjection } from './accounts.projection';
import { AccountsReadModel } from './accounts-read-model';
import { at } from '@strata/domain/testing/fixed-time';

/** 2023-11-14T22:13:20Z and a day into December */
const NOV = 1_700_000_000;
const DEC = at('2023-12-01T12:00:00Z');

describe('accounts projection: language-model usage', () => {
  let position = 0;
  const event = (data: LlmUsageRecordedData): RecordedEvent =>
    ({
      type: T.LlmUsageRecorded,
      data,
      stream: Streams.org(data.org_id),
      revision: position,
      position: ++position,
      metadata: { org_id: data.org_id, principal: { kind: 'system', id: 'system' }, request_id: 'r', occurred_at: data.at },
    }) as unknown as RecordedEvent;

  it('adds calls and tokens per organization and month, and a rebuild gives the same', () => {
    const db = new Database(':memory:');
    const projection = new AccountsProjection(db);
    const read = new AccountsReadModel(db, projection);
    const events = [
      event({ org_id: 'o1', provider: 'openai', model: 'm', input_tokens: 100, output_tokens: 20, at: NOV }),
      event({ org_id: 'o1', provider: 'openai', model: 'm', input_tokens: 5, output_tokens: 1, at: NOV + 60 }),
      event({ org_id: 'o2', provider: 'openai', model: 'm', input_tokens: 7, output_tokens: 7, at: NOV }),
      event({ org_id: 'o1', provider: 'anthropic', model: 'c', input_tokens: 3, output_tokens: 4, at: DEC }),
    ];
    for (const e of events) projection.apply(e);
    expect(read.llmUsage('o1', '2023-11')).toEqual({ calls: 2, input_tokens: 105, output_tokens: 21 });
    expect(read.llmUsage('o1', '2023-12')).toEqual({ calls: 1, input_tokens: 3, output_tokens: 4 });
    expect(read.llmUsage('o2', '2023-11')).toEqual({ calls: 1, input_tokens: 7, output_tokens: 7 });
    expect(read.llmUsage('o3', '2023-11')).toEqual({ calls: 0, input_tokens: 0, output_tokens: 0 });
    projection.reset();
    expect(read.llmUsage('o1', '2023-11')).toEqual({ calls: 0, input_tokens: 0, output_tokens: 0 });
    for (const e of events) projection.apply(e);
    expect(read.llmUsage('o1', '2023-11')).toEqual({ calls: 2, input_tokens: 105, output_tokens: 21 });
  });
});
