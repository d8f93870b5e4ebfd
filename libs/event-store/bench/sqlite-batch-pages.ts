/**
 * What a /batch-shaped commit costs the embedded event log (not part of the test suites).
 *   npm run build && node dist/libs/event-store/bench/sqlite-batch-pages.js [events-before=300000] [commits=10]
 * Each commit appends 1,000 new node streams and 999 new edge streams (one event each, uids
 * time-ordered, 50 ms apart per commit) in one transaction, as the unit of work does for a
 * 2,000-object /batch. After `events-before` events, it counts the WAL pages the next commits
 * wrote, by table and index (the frames' page numbers, mapped with dbstat), and the CPU time
 * of appendSync per event. The log's share of `batch_mb_written_per_1000_objects`, alone.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '@strata/domain/events';
import { timeOrderedUuid } from '@strata/domain/time/time-ordered-uuid';
import type { StreamAppend } from '../src/event-store.port';
import { SqliteEventStore } from '../src/sqlite/sqlite-event-store';

const ORG = 'a1b2c3d4-0000-4000-8000-00000000beef';

function batch(ms: number): StreamAppend[] {
  const metadata = { org_id: ORG, principal: { kind: 'api_key' as const, id: 'k-0b91e4' }, request_id: `req-${ms}`, occurred_at: ms / 1000 };
  const appends: StreamAppend[] = [];
  for (let i = 0; i < 1999; i++) {
    const uid = timeOrderedUuid(ms);
    const node = i < 1000;
    appends.push({
      stream: `${node ? 'node' : 'edge'}-${ORG}:${uid}`,
      expectedRevision: 'no_stream',
      events: [
        (node
          ? { type: 'NodeCreated', data: { node: { uid, label: `Batch claim ${i}`, node_type: 'Claim', props: { content: `statement number ${i}` }, created_at: ms / 1000, version: 1 }, reason: null }, metadata }
          : { type: 'EdgeCreated', data: { edge: { uid, from: 'a', to: 'b', edge_type: 'Supports', created_at: ms / 1000, version: 1 }, reason: null }, metadata }) as unknown as NewEvent,
      ],
    });
  }
  return appends;
}

function main(): void {
  const before = Number(process.argv[2] ?? 300_000);
  const commits = Number(process.argv[3] ?? 10);
  const dir = fs.mkdtempSync(join(tmpdir(), 'strata-es-pages-'));
  const file = join(dir, 'events.db');
  const store = new SqliteEventStore(file);
  const db = store.db;
  let ms = 1_764_300_000_000;
  let appendUs = 0;
  const commit = (appends: StreamAppend[]) => {
    db.exec('BEGIN IMMEDIATE');
    const t = process.cpuUsage();
    store.appendSync(appends);
    const c = process.cpuUsage(t);
    db.exec('COMMIT');
    ms += 50;
    return c.user + c.system;
  };
  try {
    db.pragma('synchronous = OFF'); // the pages are the measure here, not the fsync
    for (let n = 0; n < before; n += 1999) commit(batch(ms));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('wal_autocheckpoint = 0');
    for (let i = 0; i < commits; i++) appendUs += commit(batch(ms));
    const events = commits * 1999;
    const wal = fs.readFileSync(`${file}-wal`);
    const pageSize = wal.readUInt32BE(8);
    const owner = new Map((db.prepare('SELECT pageno, name FROM dbstat').raw().all() as Array<[number, string]>).map(([p, n]) => [p, n]));
    const pages: Record<string, number> = {};
    let frames = 0;
    for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize, frames++) {
      const name = owner.get(wal.readUInt32BE(off)) ?? '?';
      pages[name] = (pages[name] ?? 0) + 1;
    }
    const per1000 = (n: number) => Math.round((n / events) * 10_000) / 10;
    console.log(`log of ${before.toLocaleString('en-US')} events, then ${commits} commits of 1,999 new streams:`);
    console.log(`  WAL pages per 1,000 events: ${per1000(frames)} (${Math.round(((frames * (pageSize + 24)) / events) * 1000 / 1e4) / 100} MB)`);
    for (const [name, n] of Object.entries(pages).sort((a, b) => b[1] - a[1])) console.log(`    ${name.padEnd(18)} ${per1000(n)}`);
    console.log(`  appendSync CPU per event: ${(appendUs / events).toFixed(2)} µs`);
  } finally {
    void store.close().then(() => fs.rmSync(dir, { recursive: true, force: true }));
  }
}

main();
