import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { AutoEmbedFeed } from './auto-embed-feed';

const ev = (position: number): RecordedEvent =>
  recordedEvent({
  id: `e${position}`,
  type: 'NodeCreated',
  data: {},
  stream: 's',
  revision: 0,
  position,
  metadata: { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: 'r', occurred_at: 1 },
  });

describe('AutoEmbedFeed', () => {
  it('hands events over once the read models show the last of them', async () => {
    const asked: number[] = [];
    const delivered: number[][] = [];
    const feed = new AutoEmbedFeed({ headPosition: async () => 0 }, async (p) => (asked.push(p), true), (es) => delivered.push(es.map((e) => e.position)));
    await feed.apply([ev(1), ev(2)]);
    expect(asked).toEqual([2]);
    expect(delivered).toEqual([[1, 2]]);
  });

  it('fails the batch (the runner retries it from its checkpoint) while the read models lag, handing nothing over', async () => {
    const delivered: RecordedEvent[][] = [];
    const feed = new AutoEmbedFeed({ headPosition: async () => 0 }, async () => false, (es) => delivered.push(es));
    await expect(feed.apply([ev(3)])).rejects.toThrow('position 3');
    expect(delivered).toEqual([]);
  });

  it('starts at the head of the log on its first run: older writes are not re-embedded automatically', async () => {
    const delivered: number[] = [];
    const feed = new AutoEmbedFeed({ headPosition: async () => 5 }, async () => true, (es) => delivered.push(...es.map((e) => e.position)));
    await feed.reset();
    await feed.apply([ev(4), ev(5)]);
    await feed.apply([ev(5), ev(6)]);
    expect(delivered).toEqual([6]);
  });

  it('gives up a batch waiting for the read models when interrupted (shutdown), handing nothing over', async () => {
    const delivered: RecordedEvent[][] = [];
    const feed = new AutoEmbedFeed({ headPosition: async () => 0 }, () => new Promise<boolean>(() => undefined), (es) => delivered.push(es));
    const applying = feed.apply([ev(7)]);
    await new Promise((r) => setImmediate(r)); // the batch is waiting for the read models now
    feed.interrupt();
    await expect(applying).rejects.toThrow('position 7');
    await expect(feed.apply([ev(8)])).rejects.toThrow('position 8');
    expect(delivered).toEqual([]);
  });
});
