import Database from 'better-sqlite3';
import { Logger } from '@nestjs/common';
import { RecordedEvent } from '@strata/domain/events';
import { EventStore, Subscription } from '@strata/event-store/event-store.port';
import { ACCOUNT_STREAM_PREFIXES, isAccountStream } from './account-streams';
import { AccountsProjection } from './accounts.projection';
import { AccountsReadModel } from './accounts-read-model';
import { GOVERNANCE_STREAM_PREFIXES } from '@strata/domain/governance';
import { GovernanceProjection } from '../governance/governance.projection';
import { GovernanceReadModel } from '../governance/governance-read-model';
import { BRIEF_STREAM_PREFIXES } from '@strata/domain/briefs';
import { BriefsProjection } from '../briefs/briefs.projection';
import { BriefsReadModel } from '../briefs/briefs-read-model';
import { AuditProjection } from '../governance/audit.projection';
import { AuditReadModel } from '../governance/audit-read-model';

import { MCP_STREAM_PREFIXES } from '@strata/domain/mcp';
import { McpProjection } from '../mcp/mcp.projection';
import { McpReadModel } from '../mcp/mcp-read-model';
import { OntologyProjection } from '../ontology/ontology.projection';
import { OntologyReadModel } from '../ontology/ontology-read-model';
import { AgentsProjection } from '../agents/agents.projection';
import { AgentsReadModel } from '../agents/agents-read-model';
import { AREA_STREAM_PREFIXES, NODE_BACKFILL_PREFIXES } from './mirrored-areas';
import { KnowledgeHealthProjection } from '../knowledge-health/knowledge-health.projection';
import { KnowledgeHealthReadModel } from '../knowledge-health/knowledge-health-read-model';

/** What the Knowledge Health projection reads: the graph, the approval deadline setting, brief versions. */
const HEALTH_PREFIXES: readonly string[] = ['node-', 'edge-', 'graph-', ...GOVERNANCE_STREAM_PREFIXES, ...BRIEF_STREAM_PREFIXES];


/** Streams this mirror applies: the accounts, the governance records read with them on every request, briefs and the MCP connections. */
const MIRRORED_PREFIXES: readonly string[] = [...ACCOUNT_STREAM_PREFIXES, ...GOVERNANCE_STREAM_PREFIXES, ...BRIEF_STREAM_PREFIXES, ...MCP_STREAM_PREFIXES, ...AREA_STREAM_PREFIXES];
function isMirrored(stream: string): boolean {
  return isAccountStream(stream) || [...GOVERNANCE_STREAM_PREFIXES, ...BRIEF_STREAM_PREFIXES, ...MCP_STREAM_PREFIXES, ...AREA_STREAM_PREFIXES].some((p) => stream.startsWith(p));
}

const PAGE = 1000;

interface Waiter {
  position: number;
  settle: (caughtUp: boolean) => void;
}

/**
 * Servers mode: this process's own accounts read model. The accounts data set is small
 * (users, organizations, memberships, keys, refresh tokens, credits), and authentication must
 * answer synchronously without a database round trip, so every API replica keeps the same
 * SQLite read model the embedded default uses, in memory, fed from the event log:
 *
 * - `start()` replays the account streams (a filtered read, so graph history is skipped), then
 *   follows the whole log on a catch-up subscription from there;
 * - `waitFor(position)` resolves once everything up to `position` has been applied here, so an
 *   accounts write can answer only when its own replica shows it (read-your-writes), and the
 *   unit of work can wait for "the log's head" after a lost race;
 * - changes that make cached credentials stale (revocation, rotation, plan, membership) reach
 *   the credential cache through the projection's listeners, on every replica alike.
 */
export class AccountsMirror {
  readonly db: Database.Database;
  readonly projection: AccountsProjection;
  readonly readModel: AccountsReadModel;
  readonly governance: GovernanceProjection;
  readonly governanceReadModel: GovernanceReadModel;
  /** Project grants and brief versions: read on every brief request, like the governance grants */
  readonly briefs: BriefsProjection;
  readonly briefsReadModel: BriefsReadModel;
  /** the governance audit (REFERENCE §13.8): its Approval and Execution records come from node streams, backfilled after start */
  readonly audit: AuditProjection;
  readonly auditReadModel: AuditReadModel;
  private auditQueue: RecordedEvent[] | null = null;
  readonly mcp: McpProjection;
  readonly mcpReadModel: McpReadModel;
  /** the operational ontology: schemas and proposals from their streams, the object index from node events (backfilled after start) */
  readonly ontology: OntologyProjection;
  readonly ontologyReadModel: OntologyReadModel;
  /** managed agents: agents, sessions, runs, session events, agent credits */
  readonly agents: AgentsProjection;
  readonly agentsReadModel: AgentsReadModel;
  /** Knowledge Health (REFERENCE §14): fed mostly by graph streams, backfilled after start like the audit */
  readonly health: KnowledgeHealthProjection;
  readonly healthReadModel: KnowledgeHealthReadModel;
  private healthQueue: RecordedEvent[] | null = null;
  private applied = 0;
  private subscription: Subscription | null = null;
  private readonly waiters = new Set<Waiter>();
  private readonly followers: ((e: RecordedEvent) => void)[] = [];
  private closed = false;
  private starting: Promise<{ events: number; position: number }> | null = null;
  private readonly log = new Logger('AccountsMirror');

  constructor(private readonly events: EventStore) {
    this.db = new Database(':memory:');
    this.projection = new AccountsProjection(this.db);
    this.readModel = new AccountsReadModel(this.db, this.projection);
    this.governance = new GovernanceProjection(this.db);
    this.governanceReadModel = new GovernanceReadModel(this.db);
    this.briefs = new BriefsProjection(this.db);
    this.briefsReadModel = new BriefsReadModel(this.db);
    this.audit = new AuditProjection(this.db);
    this.auditReadModel = new AuditReadModel(this.db);
    this.mcp = new McpProjection(this.db);
    this.mcpReadModel = new McpReadModel(this.db);
    this.ontology = new OntologyProjection(this.db);
    this.ontologyReadModel = new OntologyReadModel(this.db);
    this.agents = new AgentsProjection(this.db);
    this.agentsReadModel = new AgentsReadModel(this.db);
    this.health = new KnowledgeHealthProjection(this.db);
    this.healthReadModel = new KnowledgeHealthReadModel(this.db);
  }

  private applyMirrored(e: RecordedEvent): void {
    this.projection.apply(e);
    this.governance.apply(e);
    this.briefs.apply(e);
    this.audit.apply(e);
    this.mcp.apply(e);
    this.ontology.apply(e);
    this.agents.apply(e);
  }

  /** Graph events feed the audit (node streams) and the ontology's object index. */
  private applyGraph(e: RecordedEvent): void {
    if (e.stream.startsWith('node-')) this.audit.apply(e);
    this.ontology.apply(e);
  }

  /** Graph events; while the backfill runs they wait behind it (status order per node). */
  private auditNodeEvent(e: RecordedEvent): void {
    if (this.auditQueue) this.auditQueue.push(e);
    else this.db.transaction(() => this.applyGraph(e))();
  }

  /**
   * The audit's Approval and Execution records and the ontology's domain objects live on node
   * streams, the bulk of the log: read them after start, without holding up authentication.
   * The audit route shows them once this is done (`auditReady`); the ontology answers 503
   * until then (`graphReady`), rather than deciding duplicates against half an index.
   */
  private async backfillAudit(upTo: number): Promise<void> {
    let after = 0;
    let complete = true;
    try {
      for (;;) {
        const page = await this.events.readAll({ after, limit: PAGE, streamPrefixes: [...NODE_BACKFILL_PREFIXES] });
        this.db.transaction(() => {
          for (const e of page) if (e.position <= upTo) this.applyGraph(e);
        })();
        if (page.length) after = page[page.length - 1].position;
        if (page.length < PAGE || after >= upTo || this.closed) break;
      }
    } catch (err) {
      complete = false;
      this.log.error(`audit backfill stopped at position ${after}: ${(err as Error).message}`);
    }
    const queued = this.auditQueue ?? [];
    this.auditQueue = null;
    this.db.transaction(() => {
      for (const e of queued) this.applyGraph(e);
    })();
    this.graphBackfilled = complete;
  }

  /**
   * Knowledge Health reads graph, settings and brief streams in log order: read them after start
   * (one ordered pass), then the events that arrived meanwhile.
   */
  private async backfillHealth(upTo: number): Promise<void> {
    let after = 0;
    try {
      for (;;) {
        const page = await this.events.readAll({ after, limit: PAGE, streamPrefixes: [...HEALTH_PREFIXES] });
        this.db.transaction(() => {
          for (const e of page) if (e.position <= upTo) this.health.apply(e);
        })();
        if (page.length) after = page[page.length - 1].position;
        if (page.length < PAGE || after >= upTo || this.closed) break;
      }
    } catch (err) {
      this.log.error(`knowledge health backfill stopped at position ${after}: ${(err as Error).message}`);
    }
    const queued = this.healthQueue ?? [];
    this.healthQueue = null;
    this.db.transaction(() => {
      for (const e of queued) this.health.apply(e);
    })();
  }

  /** Resolves once Knowledge Health holds every event up to start (servers mode). */
  healthReady: Promise<void> = Promise.resolve();

  /** Resolves once the audit holds every node event up to start (servers mode). */
  auditReady: Promise<void> = Promise.resolve();

  private graphBackfilled = false;
  /** true once the audit and the ontology's object index hold every graph event up to start */
  get graphReady(): boolean {
    return this.graphBackfilled;
  }

  /** Every event of the log up to this position has been seen (and applied if it is an account event). */
  get position(): number {
    return this.applied;
  }

  /**
   * Replays the account events, then follows the log. Resolves once caught up with the log as
   * it was. Idempotent: every module that needs the mirror caught up awaits the same start.
   */
  start(): Promise<{ events: number; position: number }> {
    return (this.starting ??= this.replayThenFollow());
  }

  private async replayThenFollow(): Promise<{ events: number; position: number }> {
    const t0 = performance.now(); // monotonic: only for the log line
    const head = await this.events.headPosition();
    let after = 0;
    let count = 0;
    for (;;) {
      const page = await this.events.readAll({ after, limit: PAGE, streamPrefixes: [...MIRRORED_PREFIXES] });
      this.db.transaction(() => {
        for (const e of page) this.applyMirrored(e);
      })();
      count += page.length;
      if (page.length) after = page[page.length - 1].position;
      if (page.length < PAGE) break;
    }
    // the filtered read went to the end of the log: nothing up to the head is missing
    this.advance(Math.max(after, head));
    this.auditQueue = [];
    this.auditReady = this.backfillAudit(this.applied);
    this.healthQueue = [];
    this.healthReady = this.backfillHealth(this.applied);
    if (!this.closed) this.subscription = this.events.subscribe(this.applied, (e) => this.follow(e));
    this.log.log(`accounts ready at position ${this.applied} (${count} events, ${Math.round(performance.now() - t0)} ms)`);
    return { events: count, position: this.applied };
  }

  /** Called with every event the subscription delivers, after it is applied (live usage counts). */
  onFollowed(listener: (e: RecordedEvent) => void): void {
    this.followers.push(listener);
  }

  /** true once this mirror has applied `position`; false if `timeoutMs` passes first (or on close). */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.applied >= position) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        position,
        settle: (caughtUp) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(caughtUp);
        },
      };
      const timer = setTimeout(() => waiter.settle(false), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private follow(e: RecordedEvent): void {
    if (this.closed) return;
    if (isMirrored(e.stream)) {
      try {
        this.db.transaction(() => this.applyMirrored(e))();
      } catch (err) {
        // deterministic (the same event fails on every replica): stopping would leave this
        // replica unable to authenticate anyone; skipping it is loud and keeps the rest current
        this.log.error(`could not apply ${e.type} at position ${e.position} (${e.stream}): ${(err as Error).message}`);
      }
    } else if (NODE_BACKFILL_PREFIXES.some((p) => e.stream.startsWith(p))) {
      try {
        this.auditNodeEvent(e);
      } catch (err) {
        this.log.error(`audit could not apply ${e.type} at position ${e.position}: ${(err as Error).message}`);
      }
    }
    if (HEALTH_PREFIXES.some((p) => e.stream.startsWith(p))) {
      try {
        if (this.healthQueue) this.healthQueue.push(e);
        else this.db.transaction(() => this.health.apply(e))();
      } catch (err) {
        this.log.error(`knowledge health could not apply ${e.type} at position ${e.position}: ${(err as Error).message}`);
      }
    }
    for (const f of this.followers) {
      try {
        f(e);
      } catch (err) {
        this.log.error(`follower failed at position ${e.position}: ${(err as Error).message}`);
      }
    }
    this.advance(e.position);
  }

  private advance(position: number): void {
    if (position <= this.applied) return;
    this.applied = position;
    for (const w of [...this.waiters]) if (w.position <= position) w.settle(true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.waiters]) w.settle(false);
    await this.subscription?.close();
    // the in-memory database stays open: a request still finishing during shutdown may read it
  }
}
