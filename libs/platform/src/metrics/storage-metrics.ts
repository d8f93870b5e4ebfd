import * as fs from 'node:fs';
import { RecordedEvent } from '@strata/domain/events';
import { rawDataOf } from '@strata/event-store/sqlite/raw-event-data';
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

function walSize(file: string): number {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}
