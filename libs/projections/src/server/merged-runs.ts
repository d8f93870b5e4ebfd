/**
 * The items of one merged write while a batch is planned, one per key: `put` drops an earlier
 * item with the same key and appends the new one (the later version wins and takes the later
 * place), `add` keeps the first. Constant time per item, where searching the list made
 * planning a 1,000-node batch quadratic.
 */
export class KeyedRun<T> {
  private readonly items: (T | undefined)[] = [];
  private readonly at = new Map<string, number>();

  put(key: string, item: T): void {
    const i = this.at.get(key);
    if (i !== undefined) this.items[i] = undefined;
    this.at.set(key, this.items.length);
    this.items.push(item);
  }

  add(key: string, item: T): void {
    if (this.at.has(key)) return;
    this.at.set(key, this.items.length);
    this.items.push(item);
  }

  list(): T[] {
    return this.items.filter((x): x is T => x !== undefined);
  }
}

/**
 * Merges consecutive writes of one kind while a batch is planned: `run` continues the last
 * write of `out` when this merger made it and `continues` says so, else pushes `fresh()`.
 * `finish` writes each run's items into its write.
 */
export class MergedRuns<W extends object, T> {
  private readonly runs = new Map<object, KeyedRun<T>>();

  constructor(private readonly assign: (write: W, items: T[]) => void) {}

  run(out: object[], continues: (write: W) => boolean, fresh: () => W): KeyedRun<T> {
    const last = out[out.length - 1];
    const current = last === undefined ? undefined : this.runs.get(last);
    if (current && continues(last as W)) return current;
    const write = fresh();
    const run = new KeyedRun<T>();
    out.push(write);
    this.runs.set(write, run);
    return run;
  }

  finish(): void {
    for (const [write, run] of this.runs) this.assign(write as W, run.list());
  }
}
