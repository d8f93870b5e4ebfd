import { DomainError } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import { ServerMaintenanceStore } from './server-maintenance-store';

/** Stores whose read model holds one node and reaches the log's head or not. */
function storage(caughtUp: boolean): ConstructorParameters<typeof ServerMaintenanceStore>[0] {
  return {
    events: { headPosition: async () => 42 },
    projections: { waitFor: async (p: number) => p === 42 && caughtUp },
    readWaitMs: 10,
    maintenance: { graphUids: async () => ({ nodes: ['n1'], edges: [] }) },
  } as unknown as ConstructorParameters<typeof ServerMaintenanceStore>[0];
}

describe('ServerMaintenanceStore', () => {
  it('names the organization’s streams once the read model has reached the head of the log', async () => {
    expect(await new ServerMaintenanceStore(storage(true)).graphStreams('o')).toEqual([
      Streams.node('o', 'n1'),
      Streams.embedding('o', 'n1'),
      Streams.series('o', 'n1'),
      Streams.graph('o'),
    ]);
  });

  it('refuses with 503 while the read model lags (a stream written a moment ago would survive the clear)', async () => {
    const err = await new ServerMaintenanceStore(storage(false)).graphStreams('o').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ status: 503, code: 'projections_lagging' });
  });
});
