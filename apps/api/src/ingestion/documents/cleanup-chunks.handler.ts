import { Inject, Injectable } from '@nestjs/common';
import { orphanedChunk } from '@strata/domain/ingestion';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { documentsOfChunk } from './document-chunks';

/**
 * `POST /ingest/cleanup` (REFERENCE §9.3): cascade-tombstones the orphaned chunks, those
 * created for a Document that is now missing or tombstoned. Their ChunkOf edge says which
 * Document; once a purge has removed it with the Document, the chunk's creation names it. A
 * chunk ingested without a document names none and is never an orphan.
 */
@Injectable()
export class CleanupChunksHandler {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async cleanup(ctx: CommandContext): Promise<{ chunks_tombstoned: number; edges_tombstoned: number }> {
    const chunks = await this.graph.listNodes(ctx.org, { node_types: ['Chunk'] }, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
    const orphans: string[] = [];
    for (const c of chunks.items) {
      const parents = await documentsOfChunk(this.graph, this.events, ctx.org, c.uid);
      if (parents.length === 0) continue;
      const docs = await this.graph.getNodes(ctx.org, parents);
      if (orphanedChunk(parents.map((u) => docs.get(u) ?? null))) orphans.push(c.uid);
    }
    if (orphans.length === 0) return { chunks_tombstoned: 0, edges_tombstoned: 0 };
    return this.uow.run(ctx, async (tx) => {
      let edges = 0;
      for (const uid of orphans) edges += (await tombstoneNode(tx, uid, { reason: 'ingest_cleanup', cascade: true })).edges_tombstoned;
      return { chunks_tombstoned: orphans.length, edges_tombstoned: edges };
    });
  }
}
