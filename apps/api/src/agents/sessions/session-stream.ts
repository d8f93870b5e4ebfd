import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AgentStreams, SessionEvent, isSessionApprovalEvent, sessionWireEvent } from '@strata/domain/agents';
import { ToolApprovalStreams } from '@strata/domain/mcp';
import { RecordedEvent, isAgentEvent } from '@strata/domain/events';
import { CLOCK, Clock } from '@strata/domain/time';
import { LOG_SUBSCRIPTIONS, LogSubscriptions, SseLogStreams } from '@strata/live';
import { AgentsStore } from '../agents-store';
import { iso } from '../agent-presenters';
import { SessionDeltas } from '../runtime/session-deltas';

/**
 * `GET /v1/agents/sessions/{sid}/stream` (REFERENCE §16.9): the session's events as they are
 * recorded, each with its `seq` as the event id, so `Last-Event-ID` (or `?after`) resumes
 * after the last one a client saw; a `ready` event first, heartbeats, closed after
 * `session.archived`; at most 10 streams per session.
 */
@Injectable()
export class SessionStream implements BeforeApplicationShutdown {
  private readonly streams: SseLogStreams;

  constructor(
    @Inject(LOG_SUBSCRIPTIONS) subscriptions: LogSubscriptions,
    @Inject(CLOCK) clock: Clock,
    private readonly store: AgentsStore,
    private readonly deltas: SessionDeltas,
  ) {
    this.streams = new SseLogStreams({ subscriptions, clock, maxStreamsPerKey: 10 });
  }

  async serve(auth: AuthContext, sid: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const s = this.store.session(auth, sid);
    const read = this.store.read;
    const stream = AgentStreams.session(s.org_id, sid);
    // the approvals of the session's runs live on streams of their own
    const approvals = ToolApprovalStreams.approval(s.org_id, '');
    const ofSession = (e: RecordedEvent) => e.stream === stream || (isSessionApprovalEvent(e) && e.data.session_id === sid);
    await this.streams.serve(request, reply, {
      capKey: `session:${sid}`,
      filter: { streamPrefixes: [stream, approvals], where: ofSession },
      positionOfId: (seq) => read.positionOfSeq(sid, seq),
      ready: () => {
        const now = read.session(s.org_id, sid) ?? s;
        return { event: 'ready', data: { session_id: sid, status: now.status, last_seq: now.last_seq } };
      },
      toFrame: async (e: RecordedEvent) => {
        if (!isAgentEvent(e) && !isSessionApprovalEvent(e)) return null;
        const wire = sessionWireEvent(e as SessionEvent);
        // servers mode: the live subscription may deliver before this replica's mirror numbered the event
        if (wire) await this.store.shows(e.position);
        const seq = wire ? read.seqAt(sid, e.position) : null;
        if (!wire || seq === null) return null;
        const d = (e as SessionEvent).data;
        return { event: wire.type, id: String(seq), data: { seq, session_id: sid, run_id: d.run_id, type: wire.type, created_at: iso(d.at), data: wire.data } };
      },
      isTerminal: (e) => e.type === 'AgentSessionArchived',
      // streamed text as the model writes it: no id, so it never moves the client's last event id
      live: (send) =>
        this.deltas.listen(sid, (d) =>
          send({ event: 'message.delta', data: { session_id: sid, run_id: d.run_id, type: 'message.delta', created_at: iso(d.at), data: { message_id: d.message_id, step: d.step, delta: d.delta } } }),
        ),
    });
  }

  beforeApplicationShutdown(): void {
    this.streams.close();
  }
}
