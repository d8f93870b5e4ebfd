import { Inject, Injectable, Optional } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import {
  BriefingChannel,
  BriefingSchedule,
  BriefingStatus,
  ScheduleInput,
  decideDeleteSchedule,
  decidePatchSchedule,
  decidePutSchedule,
  decideSendNow,
  readSchedulePatch,
  readScheduleInput,
  secretHint,
} from '@strata/domain/briefs';
import { DomainError, Errors } from '@strata/domain/errors';
import { readUid } from '@strata/domain/validation';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { ProjectAccessService } from '../access/project-access.service';
import { ProjectSourcesService } from '../sources/project-sources.service';
import { briefContext } from '../brief/brief.handlers';
import { BriefingLog } from './briefing-log';
import { presentRun, presentSchedule } from './briefing-presenter';
import { BriefingRunJobs } from './briefing-run-jobs';
import { PatchBriefingScheduleDto, PutBriefingScheduleDto } from './briefing-schedule.dto';
import { BriefingSecrets } from './briefing-secrets';
import { assertPublicWebhookHost } from './webhook-host-check';
import { HOST_RESOLVER, HostResolver, systemHostResolver } from '@strata/mcp/client/host-resolver';

const principalId = (auth: AuthContext) => `${auth.principal.kind}:${auth.principal.id}`;

/** The briefing schedule routes (REFERENCE §12.7). */
@Injectable()
export class BriefingScheduleHandlers {
  constructor(
    private readonly log: BriefingLog,
    private readonly access: ProjectAccessService,
    private readonly sources: ProjectSourcesService,
    private readonly accounts: AccountsReadModel,
    private readonly secrets: BriefingSecrets,
    private readonly jobs: BriefingRunJobs,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    @Optional() @Inject(HOST_RESOLVER) resolver: HostResolver | null,
  ) {
    this.resolver = resolver ?? systemHostResolver;
  }

  /** how webhook host names are resolved when a schedule names one (the system's, unless a test injects its own) */
  private readonly resolver: HostResolver;

  /** Whether the caller may see the schedule: at least viewer on its Project, or its in-app recipient. */
  private async visible(auth: AuthContext, s: BriefingSchedule, roles: Map<string, boolean>): Promise<boolean> {
    if (s.channel === 'in_app' && auth.credential === 'user_jwt' && s.recipient === `user:${auth.user_id}`) return true;
    let seen = roles.get(s.project_uid);
    if (seen === undefined) {
      try {
        await this.access.require(auth, s.project_uid, 'viewer');
        seen = true;
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        // the owner and admins manage every Project's schedules: one whose Project is gone stays theirs to stop
        seen = auth.credential === 'user_jwt' && (auth.role === 'owner' || auth.role === 'admin') && !(await this.projectLive(auth.org_id, s.project_uid));
      }
      roles.set(s.project_uid, seen);
    }
    return seen;
  }

  private async projectLive(org: string, uid: string): Promise<boolean> {
    const p = await this.sources.node(org, uid);
    return p !== null && p.tombstone_at === null;
  }

  /** The schedule, or 404 when it is unknown or the caller cannot list it. */
  private async visibleSchedule(auth: AuthContext, id: string) {
    const row = this.log.briefs.schedule(auth.org_id, id);
    if (!row || !(await this.visible(auth, row.schedule, new Map()))) throw Errors.notFound(`briefing schedule ${id} not found`, { id });
    return row;
  }

  async list(auth: AuthContext, filter: { project_uid?: string; channel?: BriefingChannel; status?: BriefingStatus }, limit: number, offset: number) {
    const roles = new Map<string, boolean>();
    const all: BriefingSchedule[] = [];
    for (const s of this.log.briefs.schedules(auth.org_id, filter)) if (await this.visible(auth, s, roles)) all.push(s);
    const page = all.slice(offset, offset + limit);
    return { items: page.map((s) => presentSchedule(s)), has_more: all.length > offset + page.length, limit, offset };
  }

  async get(auth: AuthContext, id: string) {
    const row = await this.visibleSchedule(auth, id);
    return presentSchedule(row.schedule, this.log.briefs.runs(auth.org_id, id));
  }

  /** 201 new (webhook: with `signing_secret`, shown this once); 200 replaced. */
  async put(auth: AuthContext, dto: PutBriefingScheduleDto, requestId: string): Promise<{ created: boolean; body: unknown }> {
    const org = auth.org_id;
    const input: ScheduleInput = readScheduleInput(dto as unknown as Record<string, unknown>, this.config.briefings.webhookAllowPrivate);
    await this.access.require(auth, input.project_uid, 'viewer');
    if (input.channel === 'in_app' && this.accounts.membership(org, input.recipient.slice('user:'.length)) === null)
      throw new DomainError(404, 'not_found', `${input.recipient} is not a member of this organization`, { field: 'recipient', uid: input.recipient });
    if (input.channel === 'webhook') await assertPublicWebhookHost(input.recipient, this.config.briefings.webhookAllowPrivate, this.resolver);
    if (input.channel === 'email' && (!this.config.briefings.smtpUrl || !this.config.briefings.smtpFrom))
      throw new DomainError(501, 'not_implemented', 'e-mail briefings need STRATA_SMTP_URL and STRATA_SMTP_FROM', { field: 'channel' });
    const existing = this.log.briefs.scheduleByKey(org, input.project_uid, input.channel, input.recipient);
    const id = existing?.schedule.id ?? this.ids.uuid();
    const secret = input.channel === 'webhook' && (!existing || input.rotate_secret) ? this.secrets.generate() : null;
    // a new schedule's secret is sealed before the events that mention it commit, and dropped if they do not
    if (secret && !existing) await this.secrets.setFirst(org, id, secret);
    try {
      await this.log.run(briefContext(auth, requestId), id, (row, tx) => {
        // another request created the same key since it was looked up: it is that schedule's now
        const again = this.log.briefs.scheduleByKey(org, input.project_uid, input.channel, input.recipient);
        if (again && again.schedule.id !== id) throw Errors.duplicate('a schedule with this project, channel and recipient was just created', { existing_id: again.schedule.id });
        const events = decidePutSchedule(row?.schedule ?? null, input, {
          org,
          by: principalId(auth),
          now: tx.now,
          schedule_id: id,
          schedule_count: this.log.briefs.scheduleCount(org, input.project_uid),
          secret_hint: secret ? secretHint(secret) : null,
        });
        return { events, result: null };
      });
    } catch (err) {
      if (secret && !existing) await this.secrets.destroy(org, id).catch(() => undefined);
      throw err;
    }
    // a rotation is in the log: the new secret signs from now on, the previous one for the overlap
    if (secret && existing) await this.secrets.rotate(org, id, secret);
    const row = this.log.briefs.schedule(org, id)!;
    return { created: !existing, body: { ...presentSchedule(row.schedule), ...(secret ? { signing_secret: secret } : {}) } };
  }

  async patch(auth: AuthContext, id: string, dto: PatchBriefingScheduleDto, requestId: string) {
    const org = auth.org_id;
    const patch = readSchedulePatch(dto as unknown as Record<string, unknown>);
    const current = await this.visibleSchedule(auth, id);
    if (patch.rotate_secret && current.schedule.channel !== 'webhook') throw Errors.invalidField('rotate_secret', 'only a webhook schedule has a signing secret');
    const secret = patch.rotate_secret ? this.secrets.generate() : null;
    await this.log.run(briefContext(auth, requestId), id, (row, tx) => {
      if (!row) throw Errors.notFound(`briefing schedule ${id} not found`, { id });
      return { events: decidePatchSchedule(row.schedule, patch, { org, by: principalId(auth), now: tx.now, secret_hint: secret ? secretHint(secret) : null }), result: null };
    });
    // the rotation is in the log: the new secret signs from now on, the previous one for the overlap
    if (secret) await this.secrets.rotate(org, id, secret);
    const row = this.log.briefs.schedule(org, id)!;
    return { ...presentSchedule(row.schedule), ...(secret ? { signing_secret: secret } : {}) };
  }

  async sendNow(auth: AuthContext, id: string, requestId: string) {
    const org = auth.org_id;
    await this.visibleSchedule(auth, id);
    const runId = this.ids.uuid();
    await this.log.run(briefContext(auth, requestId), id, (row, tx) => {
      if (!row) throw Errors.notFound(`briefing schedule ${id} not found`, { id });
      return { events: decideSendNow(row.schedule, this.log.briefs.activeRun(org, id), { org, by: principalId(auth), now: tx.now, run_id: runId }), result: null };
    });
    await this.jobs.enqueue(org, id, runId, 1);
    return { run: presentRun(this.log.briefs.run(org, runId)!) };
  }

  async remove(auth: AuthContext, id: string, requestId: string) {
    const org = auth.org_id;
    await this.visibleSchedule(auth, id);
    const cancelled = await this.log.run(briefContext(auth, requestId), id, (row, tx) => {
      if (!row) throw Errors.notFound(`briefing schedule ${id} not found`, { id });
      const active = this.log.briefs.activeRun(org, id);
      return { events: decideDeleteSchedule(row.schedule, active, { org, by: principalId(auth), now: tx.now }), result: active?.status === 'pending' ? active.id : null };
    });
    if (cancelled) await this.jobs.cancel(org, cancelled);
    await this.secrets.destroy(org, id);
    return { id, deleted: true };
  }

  /** used by list filters: a channel or status outside the enums is 400 */
  static filterOf(raw: Record<string, unknown>): { project_uid?: string; channel?: BriefingChannel; status?: BriefingStatus } {
    const out: { project_uid?: string; channel?: BriefingChannel; status?: BriefingStatus } = {};
    // a malformed uid is refused as everywhere a uid is read (§1.4), not answered with an empty page
    if (raw.project_uid !== undefined && raw.project_uid !== '') out.project_uid = readUid(raw, 'project_uid');
    if (raw.channel !== undefined && raw.channel !== '') {
      if (!['in_app', 'webhook', 'email'].includes(String(raw.channel))) throw Errors.invalidField('channel', 'channel must be one of in_app, webhook, email', { allowed: ['in_app', 'webhook', 'email'] });
      out.channel = raw.channel as BriefingChannel;
    }
    if (raw.status !== undefined && raw.status !== '') {
      if (!['active', 'paused'].includes(String(raw.status))) throw Errors.invalidField('status', 'status must be active or paused', { allowed: ['active', 'paused'] });
      out.status = raw.status as BriefingStatus;
    }
    return out;
  }
}
