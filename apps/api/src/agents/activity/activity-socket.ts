import fastifyWebsocket from '@fastify/websocket';
import { Inject, Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { CLOCK, Clock } from '@strata/domain/time';
import { LIVE_TIMERS, LOG_SUBSCRIPTIONS, LogSubscriptions, Timers, WsLogHub, WsMessageError } from '@strata/live';
import { StrataMetrics } from '@strata/observability';
import { FastRoutes } from '../../platform/http/fast-routes';
import { AgentsStore } from '../agents-store';
import { presentActivity } from '../agent-presenters';
import { ActivityFilter, boundFilter, checkActivityTypes } from './activity-filter';

export const ACTIVITY_WS_PATH = '/v1/agents/activity/ws';

function stringList(v: unknown, field: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new WsMessageError(`${field} must be a list of strings`);
  return v as string[];
}

/**
 * `GET /v1/agents/activity/ws` (REFERENCE §16.12): the activity feed live, on libs/live's
 * WebSocket hub (auth on the upgrade or in a first message, close codes, heartbeats and pings).
 * An item is sent as the agents projection numbered it: the socket looks the event's items up
 * by log position, so what it sends and what `GET /v1/agents/activity` lists are the same rows.
 */
@Injectable()
export class ActivitySocket implements OnModuleInit {
  private hub: WsLogHub<AuthContext> | null = null;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
    @Inject(LOG_SUBSCRIPTIONS) private readonly subscriptions: LogSubscriptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly plans: PlanLimits,
    private readonly store: AgentsStore,
    private readonly metrics: StrataMetrics,
    @Optional() @Inject(LIVE_TIMERS) private readonly timers?: Timers,
    @Optional() fastRoutes?: FastRoutes,
  ) {
    // described while the application is built: the OpenAPI document is made before start-up
    fastRoutes?.describe({
      path: ACTIVITY_WS_PATH,
      tag: 'managed agents: activity',
      summary:
        'The activity feed live over a WebSocket (JSON text frames): Authorization: Bearer on the upgrade, or {"type":"auth","token"} within 10 s; then ready, activity, heartbeat (25 s) and error frames; send subscribe {agent_ids?, types?, after_seq?} (replays ≤ 1000) or ping. Close codes 4401, 4403, 4408, 4400, 4429, 1001.',
      parameters: [],
      websocket: true,
    });
  }

  /** open sockets (tests, metrics) */
  get size(): number {
    return this.hub?.size ?? 0;
  }

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    // the resolver is the accounts area's provider; found at run time, not imported
    const resolver = this.moduleRef.get(CredentialResolver, { strict: false });
    const hub = (this.hub = new WsLogHub<AuthContext>({
      subscriptions: this.subscriptions,
      resolve: (token) => resolver.resolve(token),
      clock: this.clock,
      timers: this.timers,
      subscribers: this.metrics.liveSubscribers.labels('websocket'),
    }));
    const read = () => this.store.read;
    void fastify.register(fastifyWebsocket, hub.pluginOptions());
    // in a context registered after the plugin, so that its route is a WebSocket route
    void fastify.register(async (child) => {
      hub.route(child, ACTIVITY_WS_PATH, {
        authorize: (auth) => {
          this.plans.assertManagedAgentsAllowed(auth);
        },
        filterFor: (auth, sub) => {
          const f: ActivityFilter = boundFilter(auth.bound_agent_id, {
            agent_ids: stringList(sub?.agent_ids, 'agent_ids'),
            types: (() => {
              const t = stringList(sub?.types, 'types');
              return t && checkActivityTypes(t, (m) => new WsMessageError(m));
            })(),
          });
          return {
            where: (e) =>
              read()
                .activityAt(e.position)
                .some((i) => i.org_id === auth.org_id && (!f.agent_ids || (i.agent_id !== null && f.agent_ids.includes(i.agent_id))) && (!f.types || f.types.includes(i.type))),
          };
        },
        toMessage: (e, auth) => {
          const item = read().activityAt(e.position).find((i) => i.org_id === auth.org_id);
          return item ? { type: 'activity', item: presentActivity(item) } : null;
        },
        ready: (auth) => ({ org_id: auth.org_id, last_seq: read().lastActivitySeq(auth.org_id) }),
        positionOfSeq: async (seq, auth) => (seq >= read().lastActivitySeq(auth.org_id) ? this.subscriptions.head() : read().activityPositionOfSeq(auth.org_id, seq)),
      });
    });
  }
}
