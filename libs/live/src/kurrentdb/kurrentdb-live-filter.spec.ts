import { END, START } from '@kurrent/kurrentdb-client';
import { PositionMemory } from '@strata/event-store/kurrentdb/kurrentdb-translation';
import { serverFilterFor, startPositionFor } from './kurrentdb-live-filter';

describe('KurrentDB live subscription translation', () => {
  it('sends stream prefixes as a server-side stream-name prefix filter', () => {
    expect(serverFilterFor({ streamPrefixes: ['org-1/', 'org-2/'], types: ['X'] })).toMatchObject({
      filterOn: 'streamName',
      prefixes: ['org-1/', 'org-2/'],
    });
  });

  it('sends exact event types as an anchored, escaped event-type regex when no prefix is given', () => {
    const f = serverFilterFor({ types: ['run.completed', 'A|B'] }) as { filterOn: string; regex: string };
    expect(f.filterOn).toBe('eventType');
    const re = new RegExp(f.regex);
    expect(re.test('run.completed')).toBe(true);
    expect(re.test('A|B')).toBe(true);
    expect(re.test('runXcompleted')).toBe(false);
    expect(re.test('run.completed.extra')).toBe(false);
    expect(re.test('A')).toBe(false);
  });

  it('without a server-side condition subscribes to user streams only', () => {
    const f = serverFilterFor({ where: () => true }) as { filterOn: string; regex: string };
    expect(f.filterOn).toBe('streamName');
    expect(new RegExp(f.regex).test('$stats')).toBe(false);
    expect(new RegExp(f.regex).test('node-1')).toBe(true);
  });

  it("starts at the end of the log for 'now', at the start for 0, and after a remembered position otherwise", () => {
    const positions = new PositionMemory();
    expect(startPositionFor('now', positions)).toBe(END);
    expect(startPositionFor(0, positions)).toBe(START);
    positions.remember({ commit: 900n, prepare: 850n });
    expect(startPositionFor(850, positions)).toEqual({ commit: 900n, prepare: 850n });
    expect(startPositionFor(12, positions)).toEqual({ commit: 12n, prepare: 12n });
  });
});
