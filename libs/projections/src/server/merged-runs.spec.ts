import { KeyedRun, MergedRuns } from './merged-runs';

describe('KeyedRun', () => {
  it('put keeps one item per key: the later one, at the later place', () => {
    const run = new KeyedRun<string>();
    run.put('a', 'a1');
    run.put('b', 'b1');
    run.put('a', 'a2');
    run.put('c', 'c1');
    expect(run.list()).toEqual(['b1', 'a2', 'c1']);
  });

  it('add keeps the first item of a key where it was', () => {
    const run = new KeyedRun<string>();
    run.add('a', 'a');
    run.add('b', 'b');
    run.add('a', 'a again');
    expect(run.list()).toEqual(['a', 'b']);
  });
});

describe('MergedRuns', () => {
  type W = { kind: 'put'; org: string; items: string[] };
  it('continues the last write while it is its own and matches, and starts a new one otherwise', () => {
    const out: object[] = [];
    const runs = new MergedRuns<W, string>((w, items) => (w.items = items));
    const put = (org: string, item: string) => runs.run(out, (w) => w.org === org, () => ({ kind: 'put', org, items: [] })).put(item, item);
    put('a', 'x');
    put('a', 'y');
    put('b', 'z');
    out.push({ kind: 'other' });
    put('b', 'w');
    runs.finish();
    expect(out).toEqual([
      { kind: 'put', org: 'a', items: ['x', 'y'] },
      { kind: 'put', org: 'b', items: ['z'] },
      { kind: 'other' },
      { kind: 'put', org: 'b', items: ['w'] },
    ]);
  });
});
