import { Body as ReqBody, Controller, Delete, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { CleanupResponse, DocumentDeletedResponse, DocumentQueuedResponse, ResumeResponse, SessionQueuedResponse } from './ingest-documents.response';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite } from '@strata/auth/request-context.decorator';
import { Body, assertObjectBody, coerceQuery, readBoolean } from '@strata/domain/validation';
import { assertGraphWide } from '@strata/platform/scope/graph-wide';
import { assertMayIngest } from '../ingestion-scope';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { pathUid } from '../../platform/http/path-params';
import { CleanupChunksHandler } from './cleanup-chunks.handler';
import { NodeAccessService } from '@strata/platform/scope/node-access.service';
import { DeleteDocumentHandler } from './delete-document.handler';
import { DocumentIntakeHandler } from './document-intake.handler';
import { ResumeDocumentHandler } from './resume-document.handler';

/**
 * Asynchronous ingestion (REFERENCE §9.3): documents and session transcripts become jobs;
 * resume, delete and cleanup. Ingestion writes across the organization's graph, so Space- or
 * Project-scoped credentials are refused, as for the jobs it starts.
 */
@ApiTags('ingestion')
@Controller('ingest')
export class IngestDocumentsController {
  constructor(
    private readonly intake: DocumentIntakeHandler,
    private readonly resumes: ResumeDocumentHandler,
    private readonly deletes: DeleteDocumentHandler,
    private readonly cleanups: CleanupChunksHandler,
    private readonly nodes: NodeAccessService,
  ) {}

  @Post('document')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Queue a document for chunking and extraction (202 {job_id, document_uid}; 200 with deduplicated:true for identical content)' })
  @Answers(202, 'queued', DocumentQueuedResponse)
  @Answers(200, 'identical content: the existing Document, no job', DocumentQueuedResponse)
  async document(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) res: FastifyReply) {
    return this.run('document', auth, rid, raw, res);
  }

  @Post('session')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Queue a session transcript: a transcript Document captured in a (new or given) Session (202 {job_id, document_uid, session_uid})' })
  @Answers(202, 'queued', SessionQueuedResponse)
  async session(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) res: FastifyReply) {
    return this.run('session', auth, rid, raw, res);
  }

  @Post('resume/:uid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "Queue the document's chunks not yet completed (202 {job_id, document_uid, chunks_pending}; 200 when none; 409 job_active)" })
  @Answers(202, 'queued', ResumeResponse)
  @Answers(200, 'nothing left to do', ResumeResponse)
  async resume(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) res: FastifyReply) {
    assertCanWrite(auth);
    assertGraphWide(auth);
    const body = assertObjectBody(raw);
    const out = await this.resumes.resume(commandContext(auth, rid, body), pathUid(uid, 'doc_uid'), body);
    res.status(out.status);
    return out.body;
  }

  @Post('cleanup')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Cascade-tombstone chunks whose Document is missing or tombstoned ({chunks_tombstoned, edges_tombstoned})' })
  @Answers(200, 'orphaned chunks tombstoned', CleanupResponse)
  async cleanup(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<CleanupResponse> {
    assertCanWrite(auth);
    assertGraphWide(auth);
    assertObjectBody(raw);
    return this.cleanups.cleanup(commandContext(auth, rid));
  }

  @Delete('document/:uid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Cancel the document’s job and cascade-tombstone it, its chunks and what only they provided (hard=true purges)' })
  @Answers(200, 'what was deleted', DocumentDeletedResponse)
  async remove(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @Query() q: Body): Promise<DocumentDeletedResponse> {
    assertCanWrite(auth);
    assertGraphWide(auth);
    const hard = readBoolean(coerceQuery(q, [], ['hard']), 'hard') ?? false;
    const doc = pathUid(uid, 'uid');
    // before its job is cancelled: a Document hidden from the caller is absent (404), one it may only read is 403
    await this.nodes.assertMayWrite(auth, doc);
    return this.deletes.delete(commandContext(auth, rid), doc, hard);
  }

  private async run(mode: 'document' | 'session', auth: AuthContext, rid: string, raw: unknown, res: FastifyReply) {
    assertCanWrite(auth);
    assertMayIngest(auth);
    const body = assertObjectBody(raw);
    const out = await this.intake.intake(mode, auth, commandContext(auth, rid, body), body);
    res.status(out.status);
    return out.body;
  }
}
