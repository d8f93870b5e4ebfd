import { RecordedEvent } from '@strata/domain/events';
import { EventStore } from '@strata/event-store/event-store.port';
import { KurrentDbEventStore } from '@strata/event-store/kurrentdb/kurrentdb-event-store';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { embeddedPaths } from './cli-config';
import { CliError } from './cli-error';

/** The event log, read-only on the embedded default (a running service keeps writing it). */
export function openEventLog(cfg: StrataConfig): EventStore {
  if (cfg.store === 'servers') return new KurrentDbEventStore(cfg.kurrentdbUrl!);
  return new SqliteEventStore(embeddedPaths(cfg).events, { readonly: true, pollIntervalMs: 200 });
}

const PAGE = 1000;

/** A failure to reach the log, said in one line with where it was looked for. */
export function logUnavailable(cfg: StrataConfig, err: unknown): CliError {
  const e = err as Error;
  const why = e?.message && e.message !== e.name ? e.message : (e?.name ?? String(err));
  return new CliError(`could not read the event log (${cfg.store === 'servers' ? `KurrentDB at ${cfg.kurrentdbUrl}` : cfg.dataDir}): ${why}`);
}

/**
 * Every event after a position, in order, a page at a time (SQLite: `iterateAll`; servers:
 * `readAll` pages), so a year of history never sits in memory.
 */
export async function* readLog(log: EventStore, after: number): AsyncGenerator<RecordedEvent> {
  if (log instanceof SqliteEventStore) {
    yield* log.iterateAll(after, PAGE);
    return;
  }
  let cursor = after;
  for (;;) {
    const page = await log.readAll({ after: cursor, limit: PAGE });
    for (const e of page) yield e;
    if (page.length < PAGE) return;
    cursor = page[page.length - 1].position;
  }
}
