import { countOf, etaSeconds, formatCount, formatDuration, progressBar, progressLine, ratePerSecond, terminalProgressLine } from './progress-format';

describe('progress formatting', () => {
  it('computes events per second and the time left at that rate', () => {
    const p = { done: 250_000, total: 1_000_000, elapsedMs: 2_500 };
    expect(ratePerSecond(p)).toBe(100_000);
    expect(etaSeconds(p)).toBe(7.5);
  });

  it('has no ETA before there is a rate, and none left when done', () => {
    expect(etaSeconds({ done: 0, total: 10, elapsedMs: 0 })).toBeNull();
    expect(etaSeconds({ done: 10, total: 10, elapsedMs: 5 })).toBe(0);
  });

  it('formats durations as m:ss or h:mm:ss', () => {
    expect(formatDuration(7.5)).toBe('0:08');
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(null)).toBe('--:--');
  });

  it('draws a bar of fixed width', () => {
    expect(progressBar(0.5, 10)).toBe('[#####-----]');
    expect(progressBar(2, 4)).toBe('[####]');
  });

  it('shows the bar on a terminal only', () => {
    const p = { done: 420_000, total: 1_000_000, elapsedMs: 4_200 };
    expect(progressLine('rebuild', p, { bar: true, width: 10 })).toBe('rebuild  [####------]   42%  420,000/1,000,000 events  100,000 events/s  ETA 0:06');
    expect(progressLine('rebuild', p, { bar: false })).toBe('rebuild   42%  420,000/1,000,000 events  100,000 events/s  ETA 0:06');
    expect(formatCount(1234.6)).toBe('1,235');
  });

  it('counts things in the right number', () => {
    expect(countOf(1, 'alias')).toBe('1 alias');
    expect(countOf(2, 'alias')).toBe('2 aliases');
    expect(countOf(1200, 'series point')).toBe('1,200 series points');
    expect(countOf(0, 'node')).toBe('0 nodes');
  });

  it('fits the terminal: the bar shrinks or goes before the counts, rate and ETA are cut', () => {
    const p = { done: 420_000, total: 1_000_000, elapsedMs: 4_200 };
    const tail = '42%  420,000/1,000,000 events  100,000 events/s  ETA 0:06';
    const wide = terminalProgressLine('rebuilding text', p, 200);
    expect(wide).toMatch(/^rebuilding text  \[[#-]{24}\]   42%/);
    expect(wide).toHaveLength(199);
    // a narrower terminal: a shorter bar, the numbers whole
    const hundred = terminalProgressLine('rebuilding text', p, 90);
    expect(hundred).toHaveLength(89);
    expect(hundred).toMatch(/^rebuilding text  \[[#-]{5,23}\]   42%/);
    expect(hundred.trimEnd().endsWith(tail)).toBe(true);
    // too narrow for a bar: the numbers alone
    const eighty = terminalProgressLine('rebuilding text', p, 80);
    expect(eighty).toHaveLength(79);
    expect(eighty.trimEnd()).toBe(`rebuilding text   ${tail}`);
    // a terminal that reports no width is taken as 80 columns
    expect(terminalProgressLine('rebuilding text', p, 0)).toBe(eighty);
    expect(terminalProgressLine('rebuilding text', p, undefined)).toBe(eighty);
  });

  it('names what it counts: megabytes while reading a snapshot, not events', () => {
    const p = { done: 57, total: 115, elapsedMs: 500 };
    expect(progressLine('reading snapshot', p, { bar: false, unit: 'MB' })).toBe('reading snapshot   49%  57/115 MB  114 MB/s  ETA 0:01');
    expect(terminalProgressLine('staging', { done: 10, total: 20, elapsedMs: 1000 }, 120, 'objects')).toMatch(/^staging {2}\[[#-]+\] {3}50% {2}10\/20 objects {2}10 objects\/s {2}ETA 0:01 *$/);
  });
});
