import { Inject, Injectable } from '@nestjs/common';
import { DomainError, Errors } from '@strata/domain/errors';
import { resolveLayers } from '@strata/domain/ingestion';
import { Body, present } from '@strata/domain/validation';
import { DOCUMENT_LEDGER, DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { JobRegistry } from '@strata/jobs/job-registry';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { requestOrigin } from '@strata/platform/policy/http-request';
import { readModelMembership, spacedNodes } from '@strata/platform/scope/space-membership';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { ExtractorSource } from '../pipeline/extractor-source';
import { OntologyPass } from '../pipeline/ontology-pass';
import { INGESTION_JOB_KINDS, INGESTION_SERIAL_GROUP, IngestionJobInput } from '../jobs/ingestion-job-input';
import { chunkStatus, documentChunks } from './document-chunks';

/** The organization's active ingestion job for a document, if any. */
export async function activeJobOf(jobs: JobRegistry, org: string, documentUid: string) {
  return (await jobs.activeDurable(org, INGESTION_JOB_KINDS)).find((j) => (j.input as IngestionJobInput).document_uid === documentUid) ?? null;
}

/**
 * `POST /ingest/resume/{doc_uid}` (REFERENCE §9.3): queues a job for the chunks not completed
 * (pending, processing or failed), with the document's own layers unless others are given.
 * 409 `job_active` while the document has a job; 200 with nothing to do.
 */
@Injectable()
export class ResumeDocumentHandler {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(DOCUMENT_LEDGER) private readonly ledger: DocumentLedger,
    private readonly jobs: JobRegistry,
    private readonly extractors: ExtractorSource,
    private readonly runner: JobRunner,
    private readonly ontology: OntologyPass,
  ) {}

  async resume(ctx: CommandContext, uid: string, body: Body): Promise<{ status: 200 | 202; body: Record<string, unknown> }> {
    this.extractors.extractor(ctx.org);
    const explicit = present(body, 'layers') ? resolveLayers('document', { layers: body.layers }, () => this.ontology.defaultSchemaId(ctx.org)).layers : null;
    const doc = await this.graph.getNode(ctx.org, uid);
    if (!doc || doc.tombstone_at !== null) throw Errors.notFound(`document ${uid} not found`, { uid });
    if (doc.node_type !== 'Document') throw Errors.wrongNodeType('doc_uid', uid, doc.node_type, ['Document']);
    const active = await activeJobOf(this.jobs, ctx.org, uid);
    if (active) throw new DomainError(409, 'job_active', `document ${uid} already has an active job`, { job_id: active.id });
    const pending = (await documentChunks(this.graph, ctx.org, uid)).filter((c) => chunkStatus(c) !== 'completed').length;
    if (pending === 0) return { status: 200, body: { job_id: null, document_uid: uid, chunks_pending: 0 } };
    const meta = await this.ledger.get(ctx.org, uid);
    const layers = explicit ?? meta?.layers ?? resolveLayers('document', {}, null).layers;
    // the schema it was ingested with while still active, else the workspace's default (409 when none)
    const ontology_schema_id = layers.includes('ontology') ? this.ontology.resumeSchemaId(ctx.org, meta?.ontology_schema_id) : null;
    const session_uid = await this.sessionOf(ctx.org, uid);
    const input: IngestionJobInput = {
      title: String(doc.props.title ?? doc.label),
      document_uid: uid,
      // a transcript's resumed job names its Session in the result, as its first job did
      ...(session_uid ? { session_uid } : {}),
      layers,
      ...(ontology_schema_id ? { ontology_schema_id } : {}),
      // the resumed units obey the Space rule and the policies of the request that resumes them
      actor: {
        principal: ctx.principal,
        credential_id: ctx.credential_id,
        agent_id: ctx.agent_id,
        ...(ctx.access ? { access: ctx.access } : {}),
        // what the resumed units extract goes where the Document is
        space_uid: (await spacedNodes(readModelMembership(this.graph, ctx.org), [uid])).get(uid)?.spaces[0] ?? null,
        ...(ctx.http ? { origin: requestOrigin(ctx.http) } : {}),
      },
    };
    const { job } = await this.queue.enqueue({ kind: 'ingest_resume', org: ctx.org, input, serialGroup: INGESTION_SERIAL_GROUP });
    this.runner.wake();
    return { status: 202, body: { job_id: job.id, document_uid: uid, chunks_pending: pending } };
  }

  /** The live Session a transcript Document is captured in (`/ingest/session`), if any. */
  private async sessionOf(org: string, documentUid: string): Promise<string | null> {
    for (const e of await this.graph.listEdges(org, { from_uid: documentUid, edge_types: ['CapturedIn'] })) {
      const session = await this.graph.getNode(org, e.to_uid);
      if (session && session.tombstone_at === null && session.node_type === 'Session') return session.uid;
    }
    return null;
  }
}
