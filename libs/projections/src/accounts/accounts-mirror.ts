import Database from 'better-sqlite3';
import { Logger } from '@nestjs/common';
import { RecordedEvent } from '@strata/domain/events';
import { EventStore, Subscription } from '@strata/event-store/event-store.port';
import { EmbeddedProjection, flushProjections } from '../projection';
import { ProjectSourcesReadModel } from '../briefs/project-sources-read-model';
import { PROJECT_SOURCES_BACKFILL_PASS } from '../briefs/project-sources.registration';
import { GRAPH_BACKFILL_PASS, HEALTH_BACKFILL_PASS, ProjectionDefinition } from '../registry/projection-definition';
import { PROJECTIONS, mirroredProjections } from '../registry/projection-registry';
import { AccountsProjection } from './accounts.projection';
import { AccountsReadModel } from './accounts-read-model';
import { GovernanceReadModel } from '../governance/governance-read-model';
import { BriefsReadModel } from '../briefs/briefs-read-model';
import { AuditReadModel } from '../governance/audit-read-model';
import { McpReadModel } from '../mcp/mcp-read-model';
import { OntologyReadModel } from '../ontology/ontology-read-model';
import { AgentsReadModel } from '../agents/agents-read-model';
import { KnowledgeHealthReadModel } from '../knowledge-health/knowledge-health-read-model';

const PAGE = 1000;

interface Waiter {
  position: number;
  settle: (caughtUp: boolean) => void;
}

function matches(prefixes: readonly string[], stream: string): boolean {
  for (const p of prefixes) if (stream.startsWith(p)) return true;
  return false;
}

/**
 * One ordered read of streams too large to hold the start up, after start: its projections
 * are given only their own streams' events; events that arrive meanwhile wait behind it.
 */
interface BackfillPass {
  name: string;
  prefixes: string[];
  members: { projection: EmbeddedProjection; streams: readonly string[] }[];
  queue: RecordedEvent[] | null;
  ready: Promise<void>;
  complete: boolean;
}

function passProjections(pass: BackfillPass): EmbeddedProjection[] {
  return pass.members.map((m) => m.projection);
}

/**
 * Servers mode: this process's own copy of the small read models (the projection registry's
 * `mirror` definitions: accounts, governance, briefs, the audit, MCP, the ontology, managed
 * agents, Knowledge Health). Authentication and the deciders must answer synchronously
 * without a database round trip, so every API replica keeps the same SQLite read models the
 * embedded default uses, in memory, fed from the event log:
 *
 * - `start()` replays the definitions' streams (a filtered read, so graph history is skipped),
 *   then follows the whole log on a catch-up subscription from there; the backfill passes
 *   (graph streams) are read after start, without holding up authentication;
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
  readonly governanceReadModel: GovernanceReadModel;
  /** Project grants and brief versions: read on every brief request, like the governance grants */
  readonly briefsReadModel: BriefsReadModel;
  /** the governance audit (REFERENCE §13.8): its Approval and Execution records come from node streams, backfilled after start */
  readonly auditReadModel: AuditReadModel;
  readonly mcpReadModel: McpReadModel;
  /** the operational ontology: schemas and proposals from their streams, the object index from node events (backfilled after start) */
  readonly ontologyReadModel: OntologyReadModel;
  /** managed agents: agents, sessions, runs, session events, agent credits */
  readonly agentsReadModel: AgentsReadModel;
  /** Knowledge Health (REFERENCE §14): fed mostly by graph streams, backfilled after start like the audit */
  readonly healthReadModel: KnowledgeHealthReadModel;
  readonly projectSourcesReadModel: ProjectSourcesReadModel;
  /** the projections fed at start and followed: each sees every event of `startPrefixes` */
  private readonly started: EmbeddedProjection[] = [];
  private readonly startPrefixes: string[] = [];
  private readonly passes: BackfillPass[] = [];
  private applied = 0;
  private subscription: Subscription | null = null;
  private readonly waiters = new Set<Waiter>();
  private readonly followers: ((e: RecordedEvent) => void)[] = [];
  private closed = false;
  private starting: Promise<{ events: number; position: number }> | null = null;
  private readonly log = new Logger('AccountsMirror');

  constructor(
    private readonly events: EventStore,
    definitions: readonly ProjectionDefinition[] = PROJECTIONS,
  ) {
    this.db = new Database(':memory:');
    const built = new Map<string, EmbeddedProjection>();
    for (const d of mirroredProjections(definitions)) {
      const projection = d.create(this.db);
      built.set(d.name, projection);
      if (d.streams.length) {
        this.started.push(projection);
        for (const p of d.streams) if (!this.startPrefixes.includes(p)) this.startPrefixes.push(p);
      }
      if (d.backfill) {
        let pass = this.passes.find((x) => x.name === d.backfill!.pass);
        if (!pass) this.passes.push((pass = { name: d.backfill.pass, prefixes: [], members: [], queue: null, ready: Promise.resolve(), complete: false }));
        pass.members.push({ projection, streams: d.backfill.streams });
        for (const p of d.backfill.streams) if (!pass.prefixes.includes(p)) pass.prefixes.push(p);
      }
    }
    const accounts = built.get('accounts');
    if (!(accounts instanceof AccountsProjection)) throw new Error('the log mirror needs the accounts projection');
    this.projection = accounts;
    this.readModel = new AccountsReadModel(this.db, this.projection);
    this.governanceReadModel = new GovernanceReadModel(this.db);
    this.briefsReadModel = new BriefsReadModel(this.db);
    this.auditReadModel = new AuditReadModel(this.db);
    this.mcpReadModel = new McpReadModel(this.db);
    this.ontologyReadModel = new OntologyReadModel(this.db);
    this.agentsReadModel = new AgentsReadModel(this.db);
    this.healthReadModel = new KnowledgeHealthReadModel(this.db);
    this.projectSourcesReadModel = new ProjectSourcesReadModel(this.db);
  }

  private applyStarted(e: RecordedEvent): void {
    for (const p of this.started) p.apply(e);
  }

  private applyPass(pass: BackfillPass, e: RecordedEvent): void {
    for (const m of pass.members) if (matches(m.streams, e.stream)) m.projection.apply(e);
  }

  /** Before each commit: what the projections left for the end of a unit of work. */
  private flushStarted(): void {
    flushProjections(this.started);
  }

  private flushPass(pass: BackfillPass): void {
    flushProjections(passProjections(pass));
  }

  /**
   * One transaction over `projections`' writes. If it rolls back, each is told, so none keeps
   * in memory (and writes at a later flush) rows the rollback took away.
   */
  private atomically(projections: readonly EmbeddedProjection[], fn: () => void): void {
    try {
      this.db.transaction(fn)();
    } catch (err) {
      for (const p of projections) p.rolledBack?.();
      throw err;
    }
  }

  /**
   * Reads a pass's streams up to the position the start reached, then the events that arrived
   * meanwhile. A pass that stopped on an error leaves `complete` false.
   */
  private async backfill(pass: BackfillPass, upTo: number): Promise<void> {
    let after = 0;
    let complete = true;
    try {
      for (;;) {
        const page = await this.events.readAll({ after, limit: PAGE, streamPrefixes: [...pass.prefixes] });
        this.atomically(passProjections(pass), () => {
          for (const e of page) if (e.position <= upTo) this.applyPass(pass, e);
          this.flushPass(pass);
        });
        if (page.length) after = page[page.length - 1].position;
        if (page.length < PAGE || after >= upTo || this.closed) break;
      }
    } catch (err) {
      complete = false;
      this.log.error(`${pass.name} backfill stopped at position ${after}: ${(err as Error).message}`);
    }
    const queued = pass.queue ?? [];
    pass.queue = null;
    this.atomically(passProjections(pass), () => {
      for (const e of queued) this.applyPass(pass, e);
      this.flushPass(pass);
    });
    pass.complete = complete;
  }

  private pass(name: string): BackfillPass | undefined {
    return this.passes.find((p) => p.name === name);
  }

  /** Resolves once Knowledge Health holds every event up to start (servers mode). */
  get healthReady(): Promise<void> {
    return this.pass(HEALTH_BACKFILL_PASS)?.ready ?? Promise.resolve();
  }

  /** Resolves once the audit holds every node event up to start (servers mode). */
  get auditReady(): Promise<void> {
    return this.pass(GRAPH_BACKFILL_PASS)?.ready ?? Promise.resolve();
  }

  /** true once the Projects' admitted sources hold every graph event up to start */
  get sourcesReady(): boolean {
    return this.pass(PROJECT_SOURCES_BACKFILL_PASS)?.complete ?? true;
  }

  /** true once the audit and the ontology's object index hold every graph event up to start */
  get graphReady(): boolean {
    return this.pass(GRAPH_BACKFILL_PASS)?.complete ?? true;
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
      const page = await this.events.readAll({ after, limit: PAGE, streamPrefixes: [...this.startPrefixes] });
      this.atomically(this.started, () => {
        for (const e of page) this.applyStarted(e);
        this.flushStarted();
      });
      count += page.length;
      if (page.length) after = page[page.length - 1].position;
      if (page.length < PAGE) break;
    }
    // the filtered read went to the end of the log: nothing up to the head is missing
    this.advance(Math.max(after, head));
    for (const pass of this.passes) {
      pass.queue = [];
      pass.ready = this.backfill(pass, this.applied);
    }
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
    if (matches(this.startPrefixes, e.stream)) {
      try {
        this.atomically(this.started, () => {
          this.applyStarted(e);
          this.flushStarted();
        });
      } catch (err) {
        // deterministic (the same event fails on every replica): stopping would leave this
        // replica unable to authenticate anyone; skipping it is loud and keeps the rest current
        this.log.error(`could not apply ${e.type} at position ${e.position} (${e.stream}): ${(err as Error).message}`);
      }
    }
    for (const pass of this.passes) {
      if (!matches(pass.prefixes, e.stream)) continue;
      try {
        if (pass.queue) pass.queue.push(e);
        else
          this.atomically(passProjections(pass), () => {
            this.applyPass(pass, e);
            this.flushPass(pass);
          });
      } catch (err) {
        this.log.error(`${pass.name} pass could not apply ${e.type} at position ${e.position}: ${(err as Error).message}`);
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
