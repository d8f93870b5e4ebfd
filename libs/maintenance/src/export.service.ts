import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { GraphSnapshot, SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION, SnapshotCounts } from '@strata/domain/maintenance';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body, coerceQuery, readBoolean } from '@strata/domain/validation';
import type { SnapshotScope, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import { MAINTENANCE_STORE, MaintenanceStore } from './maintenance-store';
import { EmbeddingSpace, ServerEmbeddingDefault } from './server-embedding-default';

export interface ExportOptions {
  include_tombstoned: boolean;
  include_embeddings: boolean;
}

/** `GET /export` query: `include_tombstoned` (false), `include_embeddings` (true). */
export function readExportOptions(query: Body): ExportOptions {
  const q = coerceQuery(query, [], ['include_tombstoned', 'include_embeddings']);
  return {
    include_tombstoned: readBoolean(q, 'include_tombstoned') ?? false,
    include_embeddings: readBoolean(q, 'include_embeddings') ?? true,
  };
}

/** Text is handed to the socket in pieces of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

async function* jsonArray(items: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  let buf = '[';
  let first = true;
  for await (const item of items) {
    buf += first ? item : ',' + item;
    first = false;
    if (buf.length >= CHUNK_CHARS) {
      yield buf;
      buf = '';
    }
  }
  yield buf + ']';
}

async function* mapIter<T>(items: AsyncIterable<T> | Iterable<T>, f: (t: T) => string): AsyncGenerator<string> {
  for await (const t of items) yield f(t);
}

/**
 * Writes a `strata.graph` v1 snapshot (REFERENCE §8.6) as JSON text, section by section, from
 * one consistent read of the graph. Node and edge records go out as stored, without a
 * parse/serialise round trip; a node decayed by `POST /decay` also carries its decay clock,
 * `last_decayed_at`, which import restores. Version history is not exported. The reader is
 * closed when the text ends, fails or is abandoned (a generator's finally runs on return()).
 *
 * The embeddings section names the configuration in force — the organization's own, else the
 * server default it runs on when it never configured one (`serverDefault`; null when the
 * operator turned embeddings off) — and carries every RECORDED vector of an exported node:
 * those set by clients (`PUT /node/{uid}/embedding`) and those from an external provider
 * (`EmbeddingSet` events). Those cannot be recomputed from the snapshot, so they are never
 * left out. The built-in lexical embedder's vectors are not recorded: they are derived from
 * each node's text and recomputed wherever the snapshot is imported, so they are not carried.
 */
async function* snapshotText(
  reader: SnapshotSource,
  org: string,
  opts: ExportOptions,
  exportedAt: number,
  serverDefault: EmbeddingSpace | null,
): AsyncGenerator<string> {
  try {
    const scope: SnapshotScope = { include_tombstoned: opts.include_tombstoned };
    const config = opts.include_embeddings ? ((await reader.embeddingConfig(org)) ?? serverDefault) : null;
    const counts: SnapshotCounts = {
      nodes: await reader.count('nodes', org, scope),
      edges: await reader.count('edges', org, scope),
      aliases: await reader.count('aliases', org, scope),
      embeddings: config ? await reader.count('embeddings', org, scope) : 0,
      series_points: await reader.count('series_points', org, scope),
    };
    const head = JSON.stringify({ format: SNAPSHOT_FORMAT, format_version: SNAPSHOT_FORMAT_VERSION, exported_at: exportedAt, counts });
    yield head.slice(0, -1) + ',"nodes":';
    yield* jsonArray(reader.nodeDocs(org, scope));
    yield ',"edges":';
    yield* jsonArray(reader.edgeDocs(org, scope));
    yield ',"aliases":';
    yield* jsonArray(mapIter(reader.aliases(org, scope), (a) => JSON.stringify(a)));
    yield ',"embeddings":';
    if (!config) yield 'null';
    else {
      const c = { model: config.model, dimension: config.dimensions, metric: config.distance_metric, provider: config.provider };
      yield JSON.stringify(c).slice(0, -1) + ',"items":';
      yield* jsonArray(mapIter(reader.embeddings(org, scope), (e) => JSON.stringify(e)));
      yield '}';
    }
    yield ',"series_points":';
    yield* jsonArray(mapIter(reader.seriesPoints(org, scope), (p) => JSON.stringify(p)));
    yield '}';
  } finally {
    await reader.close();
  }
}

/**
 * Exports an organization's graph. Used by `GET /export` and by the CLI (`strata export`)
 * through a Nest application context.
 */
@Injectable()
export class ExportService {
  constructor(
    @Inject(MAINTENANCE_STORE) private readonly store: MaintenanceStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly embeddingDefault: ServerEmbeddingDefault,
  ) {}

  /**
   * The snapshot as a stream of JSON text. The read is pinned when this returns, so writes
   * made while the stream is consumed are not in it; the graph never sits in memory whole.
   */
  stream(org: string, opts: ExportOptions = { include_tombstoned: false, include_embeddings: true }): Readable {
    const reader = this.store.openSnapshot();
    return Readable.from(snapshotText(reader, org, opts, this.clock.now(), this.embeddingDefault.get()), { objectMode: false, highWaterMark: CHUNK_CHARS });
  }

  /** The whole snapshot as an object (small graphs, tests). */
  async snapshot(org: string, opts?: ExportOptions): Promise<GraphSnapshot> {
    const parts: Buffer[] = [];
    for await (const chunk of this.stream(org, opts)) parts.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as GraphSnapshot;
  }
}
