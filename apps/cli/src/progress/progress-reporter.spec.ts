import { ProgressReporter } from './progress-reporter';

function sink(isTTY: boolean) {
  const out = { isTTY, columns: 200, text: '', write: (t: string) => (out.text += t) };
  return out;
}

describe('ProgressReporter', () => {
  it('writes plain lines at most once a second when not on a terminal, and always a final line', () => {
    let now = 0;
    const out = sink(false);
    const r = new ProgressReporter('rebuild', out, () => now);
    for (now = 1000; now <= 1500; now += 100) r.update(now, 10_000);
    now = 2100;
    r.update(5000, 10_000);
    r.finish(10_000, 10_000);
    const lines = out.text.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => !l.includes('\r') && !l.includes('['))).toBe(true);
    expect(lines[2]).toContain('100%');
  });

  it('redraws one line in place on a terminal and ends it when finished', () => {
    let now = 0;
    const out = sink(true);
    const r = new ProgressReporter('rebuild', out, () => now);
    now = 200;
    r.update(1, 4);
    now = 400;
    r.update(2, 4);
    r.finish(4, 4);
    expect(out.text.split('\r')).toHaveLength(4);
    expect(out.text.endsWith('\n')).toBe(true);
    expect(out.text.split('\n')).toHaveLength(2);
    expect(out.text).toContain('[########################]');
  });

  it.each([0, undefined])('falls back to 80 columns when the terminal reports %s, keeping counts, rate and ETA', (columns) => {
    let now = 0;
    const out = { isTTY: true, columns, text: '', write: (t: string) => (out.text += t) };
    const r = new ProgressReporter('rebuilding text', out, () => now);
    now = 2000;
    r.update(250_000, 1_000_000);
    const line = out.text.split('\r')[1];
    expect(line).toHaveLength(79);
    // 80 columns leave no room for a bar beside the numbers: the numbers stay whole
    expect(line.trimEnd()).toBe('rebuilding text   25%  250,000/1,000,000 events  125,000 events/s  ETA 0:06');
  });

  it('draws no line before a rate can be told (the first one waits like the next ones), and says the unit', () => {
    let now = 0;
    const out = sink(false);
    const r = new ProgressReporter('reading snapshot', out, () => now, 'MB');
    now = 10;
    r.update(1, 115);
    expect(out.text).toBe('');
    now = 1000;
    r.update(60, 115);
    r.finish(115, 115);
    expect(out.text.trim().split('\n')).toEqual(['reading snapshot   52%  60/115 MB  60 MB/s  ETA 0:01', 'reading snapshot  100%  115/115 MB  115 MB/s  ETA 0:00']);
  });
});
