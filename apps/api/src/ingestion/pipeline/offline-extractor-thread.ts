import type { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { Layer } from '@strata/domain/records';
import { ChunkExtractionInput, ExtractionContext, Extractor, LayerOutcome, OfflineExtractor, VectorsAhead } from '@strata/extraction';
import { PrecomputedVectors } from '@strata/platform/vectors/precomputed-vectors';
import { startModuleWorker } from '@strata/projections/embedded/module-worker';

export interface OfflineRequest {
  id: number;
  content: string;
  layers: readonly Layer[];
  context?: ExtractionContext;
  vectorsAhead?: VectorsAhead;
}

/** Built-in vectors of `texts`, `dimensions` numbers each, one after the other in `data`. */
export interface VectorsComputed {
  dimensions: number;
  texts: string[];
  data: Float64Array;
}

export type OfflineReply = { id: number; outcomes: LayerOutcome[]; vectors?: VectorsComputed } | { id: number; error: string };

interface Pending {
  input: ChunkExtractionInput;
  resolve: (o: LayerOutcome[]) => void;
  reject: (err: Error) => void;
}

/**
 * The `offline` extractor on a worker thread: the same rules and the same outcomes as
 * OfflineExtractor, computed beside the event loop, so that a job's next chunks are extracted
 * while the main thread commits the ones before (the machine has more than one core; the
 * commit path is the bound). Chunks are extracted in the order asked. A worker that fails or
 * exits is replaced at the next call, and the chunks it held are extracted in process: a
 * broken thread costs speed, never a chunk.
 */
export class OfflineExtractorThread implements Extractor {
  readonly method = 'offline' as const;
  private readonly log = new Logger('OfflineExtractor');
  private readonly local = new OfflineExtractor();
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly vectors?: PrecomputedVectors) {}

  extract(input: ChunkExtractionInput): Promise<LayerOutcome[]> {
    if (this.closed) return this.local.extract(input);
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<LayerOutcome[]>((resolve, reject) => {
      this.pending.set(id, { input, resolve, reject });
      // the thread keeps the process alive only while it has work
      if (this.pending.size === 1) worker.ref();
      const ahead = this.vectors?.wanted ? input.vectorsAhead : undefined;
      const req: OfflineRequest = { id, content: input.content, layers: input.layers, ...(input.context ? { context: input.context } : {}), ...(ahead ? { vectorsAhead: ahead } : {}) };
      worker.postMessage(req);
    });
  }

  /** Stops the thread; later calls extract in process. */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    this.takeOver();
    if (w) await w.terminate();
  }

  private start(): Worker {
    const worker = startModuleWorker(__filename, './offline-extractor.worker', {});
    worker.unref();
    worker.on('message', (m: OfflineReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if ('outcomes' in m) {
        if (m.vectors) this.offer(m.vectors);
        p.resolve(m.outcomes);
      }
      else p.reject(new Error(m.error));
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (!this.closed) this.log.warn(`the offline extractor's thread stopped (${why}); its chunks are extracted in process`);
      this.takeOver();
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private offer(v: VectorsComputed): void {
    const d = v.dimensions;
    v.texts.forEach((t, i) => this.vectors!.offer(d, t, v.data.subarray(i * d, (i + 1) * d)));
  }

  /** The chunks a stopped thread held, extracted here instead. */
  private takeOver(): void {
    const held = [...this.pending.values()];
    this.pending.clear();
    for (const p of held) this.local.extract(p.input).then(p.resolve, p.reject);
  }
}
