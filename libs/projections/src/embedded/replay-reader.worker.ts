import { parentPort, workerData } from 'node:worker_threads';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { APPLY_EVENT, REPLAY_PLANNERS } from './replay-plan';
import type { ReplayEntry, ReplayReaderData, ReplayReaderMessage } from './replay-reader';

/**
 * The reading side of a parallel replay (replay-reader.ts): reads the log from `from` to
 * `until` on its own read-only connection, plans every event for each projection and posts
 * the plans in pages, at most `window` pages ahead of what the writing thread has consumed.
 */
function run(d: ReplayReaderData): void {
  const consumed = new Int32Array(d.credit);
  const planners = d.planners.map((name) => REPLAY_PLANNERS[name]);
  const log = new SqliteEventStore(d.file, { readonly: true });
  let sent = 0;
  let page: ReplayEntry[] = [];
  const post = (m: ReplayReaderMessage) => parentPort!.postMessage(m);
  const flush = () => {
    for (let seen = Atomics.load(consumed, 0); sent - seen >= d.window; seen = Atomics.load(consumed, 0)) Atomics.wait(consumed, 0, seen, 1_000);
    post({ entries: page });
    sent++;
    page = [];
  };
  try {
    for (const e of log.iterateAll(d.from, d.page, { ids: false })) {
      if (e.position > d.until) break;
      const entry: ReplayEntry = [e.position, 0];
      let needsEvent = false;
      for (const plan of planners) {
        const p = plan(e);
        if (p === APPLY_EVENT) needsEvent = true;
        entry.push(p);
      }
      if (needsEvent) entry[1] = e;
      page.push(entry);
      if (page.length >= d.page) flush();
    }
    if (page.length) flush();
    post({ done: true });
  } finally {
    void log.close();
  }
}

try {
  run(workerData as ReplayReaderData);
} catch (err) {
  // SQLite's errors lose their message crossing threads: send it as text
  parentPort!.postMessage({ failed: err instanceof Error ? err.message : String(err) } satisfies ReplayReaderMessage);
}
