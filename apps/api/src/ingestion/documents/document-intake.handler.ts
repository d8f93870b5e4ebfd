import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { decideCreateEdge, decideCreateNode, triggerEdgeProps, GraphChanges } from '@strata/domain/graph';
import {
  ConversationContext,
  PageOffset,
  assertDocumentSize,
  defaultTitle,
  occurredAtSeconds,
  readChunking,
  readConversationContext,
  readDocumentCore,
  readPages,
  readPaperMetadata,
  resolveLayers,
  utf8Length,
} from '@strata/domain/ingestion';
import { NodeRecord } from '@strata/domain/records';
import { Body, readUid } from '@strata/domain/validation';
import { DOCUMENT_LEDGER, DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { requestOrigin } from '@strata/platform/policy/http-request';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { expectedPlacement } from '../pipeline/placement';
import { inSameSpaces, readModelMembership } from '@strata/platform/scope/space-membership';
import { ExtractorSource } from '../pipeline/extractor-source';
import { OntologyPass } from '../pipeline/ontology-pass';
import { INGESTION_SERIAL_GROUP, IngestionJobInput } from '../jobs/ingestion-job-input';
import { readIncomingContent } from './incoming-content';

export type IntakeMode = 'document' | 'session';

export interface IntakeResult {
  status: 200 | 202;
  body: Record<string, unknown>;
}

/**
 * `POST /ingest/document` and `/ingest/session` (REFERENCE §9.3): everything is checked
 * first (501 without a provider, 4xx on bad input, nothing written); identical content
 * answers the existing Document; otherwise the Document (`pending`, its byte length), its
 * PartOfProject, and for a session the Session and CapturedIn, commit as one unit, and a job
 * is queued that chunks and extracts it.
 */
@Injectable()
export class DocumentIntakeHandler {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(DOCUMENT_LEDGER) private readonly ledger: DocumentLedger,
    private readonly extractors: ExtractorSource,
    private readonly runner: JobRunner,
    private readonly ontology: OntologyPass,
  ) {}

  async intake(mode: IntakeMode, auth: AuthContext, ctx: CommandContext, body: Body): Promise<IntakeResult> {
    this.extractors.extractor(ctx.org);
    const incoming = await readIncomingContent(body);
    const content = incoming.content;
    assertDocumentSize(content);
    const { layers, ontology_schema_id } = resolveLayers(mode, body, () => this.ontology.defaultSchemaId(ctx.org));
    if (ontology_schema_id) this.ontology.assertActive(ctx.org, ontology_schema_id);
    const chunking = readChunking(body);
    const core = readDocumentCore(body);
    const paper = mode === 'document' ? readPaperMetadata(body) : {};
    const pages = mode === 'document' ? readPages(body, Buffer.byteLength(content, 'utf8')) : { page_offsets: [], page_count: null };
    const page_offsets: PageOffset[] = pages.page_offsets.length ? pages.page_offsets : incoming.page_offsets;
    const page_count = pages.page_count ?? incoming.page_count;
    const context: ConversationContext = readConversationContext(body);
    const sessionUid = mode === 'session' ? readUid(body, 'session_uid') : undefined;
    const title = core.title ?? defaultTitle(content);
    const sha256 = createHash('sha256').update(content, 'utf8').digest('hex');

    if (mode === 'document' && !core.force_reingest) {
      const existing = await this.liveWithHash(ctx.org, sha256, expectedPlacement(ctx));
      if (existing) {
        // the PartOfProject edge is still added when it is missing
        if (core.project_uid) await this.uow.run(ctx, (tx) => this.admit(tx, auth, existing, core.project_uid!, true));
        return { status: 200, body: { job_id: null, document_uid: existing.uid, deduplicated: true } };
      }
    }

    const written = await this.uow.run(ctx, async (tx) => {
      const project = core.project_uid ? await tx.liveNode(core.project_uid, 'project_uid', ['Project']) : null;
      let session = sessionUid ? await tx.liveNode(sessionUid, 'session_uid', ['Session']) : null;
      const doc = decideCreateNode(
        {
          node_type: 'Document',
          label: title,
          props: {
            title,
            document_type: mode === 'session' ? 'transcript' : core.document_type,
            source_uri: core.source_uri,
            mime_type: incoming.mime_type ?? core.mime_type,
            content_length: utf8Length(content),
            chunk_count: 0,
            processing_status: 'pending',
            ...paper,
            // the page map on the Document itself: retrieval and briefs read a quote's pages from it (§9.5)
            ...(page_offsets.length ? { page_offsets: JSON.stringify(page_offsets) } : {}),
            ...(page_count !== null ? { page_count } : {}),
            // when the conversation took place: retrieval names it with the source document (§9.5)
            ...(context.occurred_at ? { occurred_at: context.occurred_at } : {}),
          },
        },
        tx.uuid(),
        tx.write,
      );
      tx.emit(GraphChanges.nodeCreated(tx.org, doc));
      if (project) await this.admit(tx, auth, doc, project.uid, false);
      if (mode === 'session') {
        if (!session) {
          // fractional Unix seconds (§1.3): a time of day given to the millisecond keeps it
          const at = context.occurred_at ? occurredAtSeconds(context.occurred_at) : tx.now;
          session = decideCreateNode({ node_type: 'Session', label: title, props: { started_at: at, ended_at: at, session_type: 'transcript' } }, tx.uuid(), tx.write);
          tx.emit(GraphChanges.nodeCreated(tx.org, session));
        }
        tx.emit(GraphChanges.edgeCreated(tx.org, decideCreateEdge({ edge_type: 'CapturedIn', props: triggerEdgeProps('CapturedIn') }, doc, session, tx.uuid(), tx.write)));
      }
      return { doc, session, placement: tx.placement?.space_uid ?? null };
    });

    await this.ledger.record(ctx.org, written.doc.uid, { sha256, page_offsets, context, layers, ontology_schema_id }, written.doc.created_at);
    const input: IngestionJobInput = {
      title,
      document_uid: written.doc.uid,
      ...(written.session ? { session_uid: written.session.uid } : {}),
      layers,
      ...(ontology_schema_id ? { ontology_schema_id } : {}),
      actor: {
        principal: ctx.principal,
        credential_id: ctx.credential_id,
        agent_id: ctx.agent_id,
        ...(ctx.access ? { access: ctx.access } : {}),
        space_uid: written.placement,
        ...(ctx.http ? { origin: requestOrigin(ctx.http) } : {}),
      },
      chunking,
      chunk_type: mode === 'session' ? 'transcript' : 'document',
    };
    // the text as the job's payload: up to 5 MiB that reading the job (every GET /jobs) never parses
    const { job } = await this.queue.enqueue({ kind: mode === 'session' ? 'ingest_session' : 'ingest_document', org: ctx.org, input, payload: content, serialGroup: INGESTION_SERIAL_GROUP });
    this.runner.wake();
    const out: Record<string, unknown> = { job_id: job.id, document_uid: written.doc.uid };
    if (mode === 'session') out.session_uid = written.session!.uid;
    else out.deduplicated = false;
    return { status: 202, body: out };
  }

  /** The oldest live Document recorded with this content hash, in the same Spaces as the new one would be. */
  private async liveWithHash(org: string, sha256: string, placement: string | null): Promise<NodeRecord | null> {
    for (const uid of await this.ledger.withHash(org, sha256)) {
      const n = await this.graph.getNode(org, uid);
      if (n && n.tombstone_at === null && n.node_type === 'Document' && (await inSameSpaces(readModelMembership(this.graph, org), uid, placement))) return n;
    }
    return null;
  }

  /** Document → Project PartOfProject {admitted_at, admitted_by}, unless it is there already. */
  private async admit(tx: GraphTx, auth: AuthContext, doc: NodeRecord, projectUid: string, checkExisting: boolean): Promise<void> {
    const project = await tx.liveNode(projectUid, 'project_uid', ['Project']);
    if (checkExisting) {
      const existing = await tx.edges({ from_uid: doc.uid, to_uid: project.uid, edge_types: ['PartOfProject'] });
      if (existing.length) return;
      doc = (await tx.node(doc.uid))!;
    }
    const props = triggerEdgeProps('PartOfProject', { admitted_at: tx.now, admitted_by: auth.user_id ?? auth.api_key_id ?? auth.principal.id });
    tx.emit(GraphChanges.edgeCreated(tx.org, decideCreateEdge({ edge_type: 'PartOfProject', props }, doc, project, tx.uuid(), tx.write)));
  }
}
