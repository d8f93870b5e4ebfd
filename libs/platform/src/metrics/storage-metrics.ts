import * as fs from 'node:fs';
import { RecordedEvent } from '@strata/domain/events';
import { rawDataOf } from '@strata/event-store/sqlite/raw-event-data';
import type { EventStore, StreamAppend } from '@strata/event-store/event-store.port';
import { StrataMetrics } from '@strata/observability';
import { SERVER_PROJECTION_NAMES } from '@strata/projections/server/server-projection';
import type { EmbeddedStorage } from '../storage/embedded-storage';
import type { ServerStores } from '../storage/server-stores';

/**
 * The storage side of /metrics: what the log takes in, how far each projection trails it, and
 * the embedded default's WAL files. Gauges are read when Prometheus scrapes, so an idle
 * service does no work for them.
 */
export function instrumentStorage(metrics: StrataMetrics, embedded: EmbeddedStorage | null, servers: ServerStores | null): void {
  if (embedded) {
    embedded.onCommitted((events) => countAppends(metrics, events));
    embedded.onCheckpoint((c) => {
      metrics.checkpointDuration.observe({ database: c.name, mode: c.mode }, c.seconds);
      // a RESTART refused while the writer is busy reports -1 pages: a counter that is handed a
      // negative increment throws, on the checkpointer's message, and takes the process down
      if (c.pages > 0) metrics.checkpointPages.inc({ database: c.name }, c.pages);
    });
    metrics.gauge('strata_projection_position', 'Last event-log position applied, per projection', ['projection'], () =>
      embedded.runner.status().map((s) => ({ labels: { projection: s.name }, value: s.checkpoint })),
    );
    metrics.gauge('strata_projection_lag_events', 'Events of the log a projection has not applied yet', ['projection'], () =>
      embedded.runner.status().map((s) => ({ labels: { projection: s.name }, value: s.lag })),
    );
    metrics.gauge('strata_event_log_head_position', 'Position of the last event in the log', [], () => [{ value: embedded.events.headPositionSync() }]);
    metrics.gauge('strata_sqlite_wal_bytes', 'Size of the SQLite write-ahead log files (embedded default)', ['database'], () =>
      [
        ['events', embedded.events.file],
        ['projections', embedded.projections.name],
      ].map(([database, file]) => ({ labels: { database }, value: walSize(file) })),
    );
  } else if (servers) {
    countServerAppends(metrics, servers.events);
    const positions = async () =>
      Promise.all(SERVER_PROJECTION_NAMES.map(async (name) => ({ name, position: (await servers.checkpoints.get(name))?.position ?? 0 })));
    metrics.gauge('strata_projection_position', 'Last event-log position applied, per projection', ['projection'], async () =>
      (await positions()).map((p) => ({ labels: { projection: p.name }, value: p.position })),
    );
    metrics.gauge('strata_projection_lag_events', 'Events of the log a projection has not applied yet', ['projection'], async () => {
      const [head, all] = await Promise.all([servers.events.headPosition(), positions()]);
      return all.map((p) => ({ labels: { projection: p.name }, value: Math.max(0, head - p.position) }));
    });
    metrics.gauge('strata_event_log_head_position', 'Position of the last event in the log', [], async () => [{ value: await servers.events.headPosition() }]);
  }
}

function countAppends(metrics: StrataMetrics, events: RecordedEvent[]): void {
  let bytes = 0;
  for (const e of events) {
    const raw = rawDataOf(e);
    bytes += raw === undefined ? 0 : Buffer.byteLength(raw);
  }
  metrics.logAppends.inc(events.length);
  if (bytes) metrics.logAppendBytes.inc(bytes);
}

/**
 * Servers mode: every append of this process (both units of work, the accounts' and the
 * graph's, share the one store) is counted once KurrentDB accepted it. The store instance's
 * `append` is wrapped in place so that whoever holds it is counted, without each caller
 * knowing about metrics. Bytes are the events' data as JSON, what the log stores.
 */
function countServerAppends(metrics: StrataMetrics, events: EventStore): void {
  const append = events.append.bind(events);
  events.append = async (appends: StreamAppend[]) => {
    const result = await append(appends);
    let n = 0;
    let bytes = 0;
    for (const a of appends) {
      n += a.events.length;
      for (const e of a.events) bytes += Buffer.byteLength(JSON.stringify(e.data ?? null));
    }
    metrics.logAppends.inc(n);
    if (bytes) metrics.logAppendBytes.inc(bytes);
    return result;
  };
}

function walSize(file: string): number {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}
