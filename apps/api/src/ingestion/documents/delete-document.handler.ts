import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import { EXTRACTION_REASON, createdByExtraction } from '@strata/domain/ingestion';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { NodeRecord } from '@strata/domain/records';
import { DOCUMENT_LEDGER, DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { JobRegistry } from '@strata/jobs/job-registry';
import { purgeObjects } from '@strata/maintenance/purge-objects';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { tombstoneEdge, tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { originOf } from './document-chunks';
import { activeJobOf } from './resume-document.handler';

export interface DeleteDocumentResult {
  document_uid: string;
  chunks_deleted: number;
  nodes_deleted: number;
  edges_deleted: number;
  jobs_cancelled: number;
}

/**
 * `DELETE /ingest/document/{uid}?hard=` (REFERENCE §9.3): cancels the document's active job,
 * then, in one unit of work, tombstones the Document, its Chunks and every extracted node
 * whose only provenance is those chunks (with every edge touching them); a node also
 * extracted elsewhere lives on and loses only its ExtractedFrom edges to these chunks.
 * `hard=true` then purges all of it from the log and the read models.
 */
@Injectable()
export class DeleteDocumentHandler {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(DOCUMENT_LEDGER) private readonly ledger: DocumentLedger,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly jobs: JobRegistry,
  ) {}

  async delete(ctx: CommandContext, uid: string, hard: boolean): Promise<DeleteDocumentResult> {
    const doc = await this.graph.getNode(ctx.org, uid);
    if (!doc || (doc.tombstone_at !== null && !hard)) throw Errors.notFound(`document ${uid} not found`, { uid });
    if (doc.node_type !== 'Document') throw Errors.wrongNodeType('uid', uid, doc.node_type, ['Document']);
    const active = await activeJobOf(this.jobs, ctx.org, uid);
    let jobs_cancelled = 0;
    if (active) {
      await this.jobs.cancelDurable(ctx.org, active, { discard: true });
      jobs_cancelled = 1;
    }
    const reason = `ingest_delete:${uid}`;
    const out = await this.uow.run(ctx, async (tx) => {
      const edgesDone = new Set<string>();
      const nodes: string[] = [];
      const chunkEdges = await tx.edges({ to_uid: uid, edge_types: ['ChunkOf'], include_tombstoned: hard });
      const chunkUids = new Set(chunkEdges.map((e) => e.from_uid));
      const extracted = new Map<string, NodeRecord>();
      for (const c of chunkUids) {
        for (const e of await tx.edges({ to_uid: c, edge_types: ['ExtractedFrom'], include_tombstoned: hard })) {
          const n = await tx.node(e.from_uid);
          if (n) extracted.set(n.uid, n);
        }
      }
      let nodes_deleted = 0;
      let edges_deleted = 0;
      const cascade = async (nodeUid: string) => {
        const r = await tombstoneNode(tx, nodeUid, { reason, cascade: true, by: tx.write.principal_id });
        nodes.push(nodeUid);
        edges_deleted += r.edges_tombstoned;
        return r.changed;
      };
      for (const n of extracted.values()) {
        const provenance = await tx.edges({ from_uid: n.uid, edge_types: ['ExtractedFrom'] });
        const elsewhere = provenance.some((e) => !chunkUids.has(e.to_uid));
        // a node made elsewhere (by a user, say) that an extraction reused outlives the document
        if (elsewhere || !(await this.extractedByIngestion(tx.org, n.uid, () => tx.edges({ from_uid: n.uid, edge_types: ['ExtractedFrom'], include_tombstoned: true })))) {
          for (const e of provenance) if (chunkUids.has(e.to_uid) && !edgesDone.has(e.uid) && (await tombstoneEdge(tx, e.uid, reason)).changed) edges_deleted++;
        } else if (n.tombstone_at === null) {
          if (await cascade(n.uid)) nodes_deleted++;
        } else nodes.push(n.uid);
      }
      let chunks_deleted = 0;
      for (const c of chunkUids) {
        const chunk = await tx.node(c);
        if (chunk && chunk.tombstone_at === null && (await cascade(c))) chunks_deleted++;
        else nodes.push(c);
      }
      if (doc.tombstone_at === null) await cascade(uid);
      else nodes.push(uid);
      return { chunks_deleted, nodes_deleted, edges_deleted, nodes };
    });
    if (hard) {
      await this.uow.run(ctx, (tx) => purgeObjects(tx, out.nodes, [], null));
      await this.ledger.forget(ctx.org, uid);
    }
    return { document_uid: uid, chunks_deleted: out.chunks_deleted, nodes_deleted: out.nodes_deleted, edges_deleted: out.edges_deleted, jobs_cancelled };
  }

  /** Whether ingestion created the node, as its creation event (and, for older nodes, its provenance edges') says. */
  private async extractedByIngestion(org: string, uid: string, provenance: () => Promise<{ uid: string }[]>): Promise<boolean> {
    const origin = await originOf(this.events, Streams.node(org, uid));
    // the edges are read only for nodes the reason does not settle (those written before it was recorded)
    if (origin === null || origin.reason === EXTRACTION_REASON) return createdByExtraction(origin, []);
    const requests: string[] = [];
    for (const e of await provenance()) {
      const o = await originOf(this.events, Streams.edge(org, e.uid));
      if (o) requests.push(o.request_id);
    }
    return createdByExtraction(origin, requests);
  }
}
