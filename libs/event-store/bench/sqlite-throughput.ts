/**
 * Quick throughput check of the embedded event log (not part of the test suites).
 *   npm run build && node dist/libs/event-store/bench/sqlite-throughput.js [events=1000000]
 * Prints appends/s (single-event transactions, fsync each), batched appends, iterateAll and
 * readAll paging rates on a temp file with realistic envelope sizes.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '@strata/domain/events';
import { SqliteEventStore } from '../src/sqlite/sqlite-event-store';

function event(i: number): NewEvent {
  return {
    // a props patch of the size of a small node record: the log's cost depends on bytes, not type
    type: 'NodeTouched',
    data: {
      uid: `n${i}`,
      props: { name: `Concept number ${i}`, description: 'A short description of the concept.', tags: ['a', 'b'], node_type: 'Concept', layer: 'reality' },
      updated_at: 1_700_000_000 + i,
    },
    metadata: {
      org_id: 'org-7f3a',
      principal: { kind: 'user', id: 'user-0b91e4' },
      agent_id: null,
      request_id: `req-${i}`,
      causation_id: null,
      correlation_id: `corr-${i >> 4}`,
      occurred_at: 1_700_000_000.123 + i,
    },
  };
}

function rate(n: number, ms: number): string {
  return `${Math.round((n / ms) * 1000).toLocaleString('en-US')}/s`;
}

function main(): void {
  const total = Number(process.argv[2] ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'strata-es-bench-'));
  const file = join(dir, 'events.db');
  const store = new SqliteEventStore(file);
  try {
    // single-event appends: one durable (fsync'd) transaction each
    const singles = 2000;
    let t = performance.now();
    for (let i = 0; i < singles; i++) {
      store.appendSync([{ stream: `node-org:s${i % 50}`, expectedRevision: 'any', events: [event(i)] }]);
    }
    let ms = performance.now() - t;
    console.log(`append, 1 event/tx, expected 'any'   : ${rate(singles, ms)} (${(ms / singles).toFixed(3)} ms/tx)`);

    t = performance.now();
    for (let i = 0; i < singles; i++) {
      const s = `node-org:c${i}`;
      store.appendSync([{ stream: s, expectedRevision: 'no_stream', events: [event(i)] }]);
    }
    ms = performance.now() - t;
    console.log(`append, 1 event/tx, expected no_stream: ${rate(singles, ms)}`);

    // a typical cognitive request: node + 3 edges in 4 streams, one transaction
    const requests = 2000;
    t = performance.now();
    for (let i = 0; i < requests; i++) {
      store.appendSync([
        { stream: `node-org:r${i}`, expectedRevision: 'no_stream', events: [event(i)] },
        { stream: `edge-org:r${i}a`, expectedRevision: 'no_stream', events: [event(i)] },
        { stream: `edge-org:r${i}b`, expectedRevision: 'no_stream', events: [event(i)] },
        { stream: `edge-org:r${i}c`, expectedRevision: 'no_stream', events: [event(i)] },
      ]);
    }
    ms = performance.now() - t;
    console.log(`append, 4 streams/tx (request shape)  : ${rate(requests, ms)} tx, ${rate(requests * 4, ms)} events`);

    // bulk load in batches of 1000 events (also builds the log for the read benchmarks)
    const batchSize = 1000;
    const remaining = Math.max(0, total - store.headPositionSync());
    t = performance.now();
    for (let done = 0; done < remaining; done += batchSize) {
      const n = Math.min(batchSize, remaining - done);
      const events = Array.from({ length: n }, (_, k) => event(done + k));
      store.appendSync([{ stream: `bulk-${done / batchSize}`, expectedRevision: 'no_stream', events }]);
    }
    ms = performance.now() - t;
    console.log(`append, ${batchSize} events/tx (batched)        : ${rate(remaining, ms)} events`);

    const head = store.headPositionSync();
    console.log(`log: ${head.toLocaleString('en-US')} events, ${(statSync(file).size / 1e6).toFixed(0)} MB (+ WAL)`);

    for (const size of [1000, 5000]) {
      const before = process.memoryUsage().heapUsed;
      let maxHeap = 0;
      t = performance.now();
      let n = 0;
      let checksum = 0;
      for (const e of store.iterateAll(0, size)) {
        n++;
        checksum += e.position;
        if ((n & 0xffff) === 0) maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed);
      }
      ms = performance.now() - t;
      if (checksum <= 0) throw new Error('unreachable');
      console.log(
        `iterateAll (batch ${size})                : ${rate(n, ms)} (${n.toLocaleString('en-US')} events in ${ms.toFixed(0)} ms, heap growth ≤ ${((maxHeap - before) / 1e6).toFixed(0)} MB)`,
      );
    }

    t = performance.now();
    let n = 0;
    for (let after = 0; ; ) {
      const page = store.readAllSync({ after, limit: 500 });
      if (page.length === 0) break;
      n += page.length;
      after = page[page.length - 1].position;
    }
    ms = performance.now() - t;
    console.log(`readAllSync pages of 500              : ${rate(n, ms)}`);

    t = performance.now();
    n = 0;
    for (let after = 0; ; ) {
      const page = store.readAllSync({ after, limit: 500, streamPrefixes: ['node-', 'edge-'] });
      if (page.length === 0) break;
      n += page.length;
      after = page[page.length - 1].position;
    }
    ms = performance.now() - t;
    console.log(`readAllSync prefix-filtered (sparse)  : ${rate(n, ms)} matching (${n} of ${head}, ${ms.toFixed(0)} ms)`);
  } finally {
    void store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
