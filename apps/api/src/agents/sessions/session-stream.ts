import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AgentStreams, SessionEvent, isSessionApprovalEvent, sessionWireEvent } from '@strata/domain/agents';
import { ToolApprovalStreams } from '@strata/domain/mcp';
import { RecordedEvent, isAgentEvent } from '@strata/domain/events';
import { CLOCK, Clock } from '@strata/domain/time';
import { LOG_SUBSCRIPTIONS, LogSubscriptions, SseLogStreams } from '@strata/live';
import type { SseFrame } from '@strata/live/sse/sse-frame';
import { AgentsStore } from '../agents-store';
import { iso } from '../agent-presenters';
import { SessionDelta, SessionDeltas } from '../runtime/session-deltas';

/** recorded events' frames kept for the session's other streams (they ask for the same events at about the same time) */
const FRAMES_KEPT = 1024;

/**
 * `GET /v1/agents/sessions/{sid}/stream` (REFERENCE §16.9): the session's events as they are
 * recorded, each with its `seq` as the event id, so `Last-Event-ID` (or `?after`) resumes
 * after the last one a client saw; a `ready` event first, heartbeats, closed after
 * `session.archived`; at most 10 streams per session.
 */
@Injectable()
export class SessionStream implements BeforeApplicationShutdown {
  private readonly streams: SseLogStreams;
  /**
   * Each recorded event's frame, made once for every stream of its session (up to 10 per
   * session, REFERENCE §16.9): its `seq` looked up and its data serialised once, not once per
   * subscriber. Keyed by session and log position; the oldest forgotten first.
   */
  private readonly frames = new Map<string, Promise<SseFrame | null>>();
  /** each streamed delta's data, serialised once for all the session's streams */
  private readonly deltaFrames = new WeakMap<SessionDelta, SseFrame>();

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
      toFrame: (e: RecordedEvent) => this.frameOf(sid, e),
      isTerminal: (e) => e.type === 'AgentSessionArchived',
      // streamed text as the model writes it: no id, so it never moves the client's last event id
      live: (send) => this.deltas.listen(sid, (d) => send(this.deltaFrame(sid, d))),
    });
  }

  private frameOf(sid: string, e: RecordedEvent): Promise<SseFrame | null> {
    const key = `${sid}:${e.position}`;
    let frame = this.frames.get(key);
    if (!frame) {
      frame = this.makeFrame(sid, e);
      this.frames.set(key, frame);
      if (this.frames.size > FRAMES_KEPT) this.frames.delete(this.frames.keys().next().value as string);
      // a failed lookup is not kept: the next stream asks again
      frame.catch(() => this.frames.delete(key));
    }
    return frame;
  }

  private async makeFrame(sid: string, e: RecordedEvent): Promise<SseFrame | null> {
    if (!isAgentEvent(e) && !isSessionApprovalEvent(e)) return null;
    const wire = sessionWireEvent(e as SessionEvent);
    if (!wire) return null;
    // servers mode: the live subscription may deliver before this replica's mirror numbered the event
    await this.store.shows(e.position);
    const seq = this.store.read.seqAt(sid, e.position);
    if (seq === null) return null;
    const d = (e as SessionEvent).data;
    return { event: wire.type, id: String(seq), data: JSON.stringify({ seq, session_id: sid, run_id: d.run_id, type: wire.type, created_at: iso(d.at), data: wire.data }) };
  }

  private deltaFrame(sid: string, d: SessionDelta): SseFrame {
    let frame = this.deltaFrames.get(d);
    if (!frame) {
      frame = { event: 'message.delta', data: JSON.stringify({ session_id: sid, run_id: d.run_id, type: 'message.delta', created_at: iso(d.at), data: { message_id: d.message_id, step: d.step, delta: d.delta } }) };
      this.deltaFrames.set(d, frame);
    }
    return frame;
  }

  beforeApplicationShutdown(): void {
    this.streams.close();
  }
}
