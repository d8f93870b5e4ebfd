/**
 * The CPU time of the embedded log's append alone, in the shapes the service writes (not part
 * of the test suites).
 *   npm run build && node dist/libs/event-store/bench/sqlite-append-cpu.js [rounds=5] [store module]
 * Each shape runs inside group-commit transactions as the unit of work opens them (BEGIN
 * IMMEDIATE … COMMIT, the commit not timed), with `synchronous = OFF`: the fsync is not the
 * measure here. `post_node`: 32 requests per commit, each one append of one new stream with one
 * event (a `NodeCreated` of a small record) and its own metadata; `update`: the same on existing
 * streams (expected revision checked); `request_20`: one append of 20 new streams per request,
 * 8 per commit (an ingestion chunk's shape); `batch_1999`: one append of 1,999 new streams per
 * commit (a `POST /batch` of 1,000 nodes and 999 edges). Prints µs of CPU per append and per event, the
 * median of `rounds` alternating runs. The optional module path loads another build's
 * SqliteEventStore (an A/B against the base build on the same machine state).
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '@strata/domain/events';
import { timeOrderedUuid } from '@strata/domain/time/time-ordered-uuid';
import type { StreamAppend } from '../src/event-store.port';
import { SqliteEventStore } from '../src/sqlite/sqlite-event-store';

const ORG = 'a1b2c3d4-0000-4000-8000-00000000beef';
type Store = Pick<SqliteEventStore, 'appendSync' | 'db' | 'close'>;
type Shape = { name: string; perCommit: number; commits: number; request: (i: number, ms: number) => StreamAppend[] };

function metadata(i: number, ms: number) {
  return { org_id: ORG, principal: { kind: 'api_key' as const, id: 'k-0b91e4' }, agent_id: null, request_id: `req-${i}`, causation_id: null, correlation_id: `corr-${i}`, occurred_at: ms / 1000 };
}

function nodeCreated(uid: string, i: number, ms: number, meta: object): NewEvent {
  const node = { uid, label: `Load test goal ${i}`, node_type: 'Goal', layer: 'intent', props: { description: 'written under load', priority: 'high' }, created_at: ms / 1000, updated_at: ms / 1000, version: 1 };
  return { type: 'NodeCreated', data: { node, reason: null }, metadata: meta } as unknown as NewEvent;
}

const updated: string[] = [];
const SHAPES: Shape[] = [
  {
    name: 'post_node',
    perCommit: 32,
    commits: 300,
    request: (i, ms) => {
      const uid = timeOrderedUuid(ms);
      const stream = `node-${ORG}:${uid}`;
      if (updated.length < 2000) updated.push(stream);
      return [{ stream, expectedRevision: 'no_stream', events: [nodeCreated(uid, i, ms, metadata(i, ms))] }];
    },
  },
  {
    name: 'update',
    perCommit: 32,
    commits: 60,
    request: (i, ms) => {
      const stream = updated[i % updated.length];
      return [{ stream, expectedRevision: 'any', events: [nodeCreated(stream.slice(-36), i, ms, metadata(i, ms))] }];
    },
  },
  {
    name: 'request_20',
    perCommit: 8,
    commits: 60,
    request: (i, ms) => freshStreams(20, i, ms, () => 'node'),
  },
  {
    // a POST /batch of 1,000 nodes and 999 edges: one append of 1,999 new streams per commit
    name: 'batch_1999',
    perCommit: 1,
    commits: 15,
    request: (i, ms) => freshStreams(1999, i, ms, (k) => (k < 1000 ? 'node' : 'edge')),
  },
];

/** One request's appends: `n` new streams of one event each (a node created), all `no_stream`. */
function freshStreams(n: number, i: number, ms: number, family: (k: number) => string) {
  const meta = metadata(i, ms);
  return Array.from({ length: n }, (_, k) => {
    const uid = timeOrderedUuid(ms);
    return { stream: `${family(k)}-${ORG}:${uid}`, expectedRevision: 'no_stream' as const, events: [nodeCreated(uid, i * n + k, ms, meta)] };
  });
}

function runShape(store: Store, shape: Shape, clock: { ms: number; i: number }): { perAppend: number; perEvent: number } {
  const db = store.db;
  let us = 0;
  let appends = 0;
  let events = 0;
  for (let c = 0; c < shape.commits; c++) {
    // the requests are built before the clock starts: the append's own work is the measure
    const requests = Array.from({ length: shape.perCommit }, () => shape.request(clock.i++, (clock.ms += 1)));
    db.exec('BEGIN IMMEDIATE');
    const t = process.cpuUsage();
    for (const r of requests) store.appendSync(r);
    const used = process.cpuUsage(t);
    db.exec('COMMIT');
    us += used.user + used.system;
    appends += requests.length;
    for (const r of requests) for (const a of r) events += a.events.length;
  }
  return { perAppend: us / appends, perEvent: us / events };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function main(): void {
  const rounds = Number(process.argv[2] ?? 5);
  const modulePath = process.argv[3];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Ctor: new (file: string) => Store = modulePath ? require(modulePath).SqliteEventStore : SqliteEventStore;
  const dir = fs.mkdtempSync(join(tmpdir(), 'strata-es-cpu-'));
  const store = new Ctor(join(dir, 'events.db'));
  store.db.pragma('synchronous = OFF');
  const clock = { ms: 1_764_300_000_000, i: 0 };
  const results: Record<string, { perAppend: number[]; perEvent: number[] }> = {};
  try {
    // a warm-up round (JIT, the stream index's first pages), not counted
    for (const shape of SHAPES) runShape(store, shape, clock);
    for (let r = 0; r < rounds; r++)
      for (const shape of SHAPES) {
        const { perAppend, perEvent } = runShape(store, shape, clock);
        (results[shape.name] ??= { perAppend: [], perEvent: [] }).perAppend.push(perAppend);
        results[shape.name].perEvent.push(perEvent);
      }
    for (const [name, r] of Object.entries(results))
      console.log(`${name.padEnd(11)} append CPU: ${median(r.perAppend).toFixed(2)} µs per append, ${median(r.perEvent).toFixed(2)} µs per event (median of ${rounds})`);
  } finally {
    void store.close().then(() => fs.rmSync(dir, { recursive: true, force: true }));
  }
}

main();
