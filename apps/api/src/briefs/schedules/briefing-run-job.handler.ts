import { Inject, Injectable, Logger } from '@nestjs/common';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai';
import {
  AttemptVerdict,
  BriefingPausedReason,
  BriefingRunEnd,
  BriefingSchedule,
  Change,
  StoredBriefVersion,
  decideRunEnd,
  emailVerdict,
  webhookVerdict,
} from '@strata/domain/briefs';
import { DomainError } from '@strata/domain/errors';
import { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobHandler } from '@strata/jobs/runner/job-runner';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { BriefingScheduleRow } from '@strata/projections/briefs/briefs-read-model';
import { BriefWriter } from '../brief/brief-writer';
import { BriefRegenerateJobHandler } from '../generation/brief-regenerate-job.handler';
import { ProjectSourcesService } from '../sources/project-sources.service';
import { BriefingDelivery } from './briefing-delivery';
import { BriefingLog, systemContext } from './briefing-log';
import { BriefingRunJobInput } from './briefing-run-jobs';
import { BriefingSecrets } from './briefing-secrets';
import { BRIEFING_RETRY_DELAYS, RetryDelays } from './briefing-retry-delays';

type Outcome = { end: BriefingRunEnd; pause?: BriefingPausedReason } | { version: StoredBriefVersion; reused: boolean };

const failed = (code: string, message: string): BriefingRunEnd => ({ status: 'failed', brief_version: null, reused: null, material_change_count: 0, skip_reason: null, error: { code, message } });

/**
 * Carries out one attempt of a briefing run (REFERENCE §12.7). The first attempt starts the run,
 * regenerates the brief with the schedule's mode (reusing the current version when nothing
 * changed), skips it when the Project is gone or nothing material changed since the last
 * delivered version, and delivers; a failed webhook or e-mail attempt records when the next is
 * due, and the ticker queues that attempt's job then. Every step is appended against the
 * schedule stream's revision, so a run deleted or finished meanwhile is left alone.
 */
@Injectable()
export class BriefingRunJobHandler implements JobHandler {
  private readonly logger = new Logger('BriefingRuns');

  constructor(
    private readonly log: BriefingLog,
    private readonly sources: ProjectSourcesService,
    private readonly writer: BriefWriter,
    private readonly llmJob: BriefRegenerateJobHandler,
    private readonly delivery: BriefingDelivery,
    private readonly secrets: BriefingSecrets,
    private readonly accounts: AccountsReadModel,
    @Inject(LANGUAGE_MODELS) private readonly models: LanguageModels,
    @Inject(BRIEFING_RETRY_DELAYS) private readonly delays: RetryDelays,
  ) {}

  async run(job: QueuedJob, ctx: JobContext): Promise<unknown> {
    const input = job.input as BriefingRunJobInput;
    const org = job.org;
    const context = systemContext(org, `job:${job.id}`);
    const row = this.log.briefs.schedule(org, input.schedule_id);
    const run = this.log.briefs.run(org, input.run_id);
    // deleted, finished, or this attempt already made: nothing to do
    if (!row || !run || (run.status !== 'pending' && run.status !== 'running') || run.attempts >= input.attempt) return { run_id: input.run_id, status: run?.status ?? 'gone' };

    let version: StoredBriefVersion;
    let reused: boolean;
    let material: { count: number; changes: Change[] };
    if (run.status === 'pending') {
      await this.log.run(context, row.schedule.id, (r, tx) => {
        if (!r || this.log.briefs.run(org, run.id)?.status !== 'pending') throw new DomainError(409, 'run_active', 'the run is no longer pending');
        return { events: [{ type: 'BriefingRunStarted', data: { org_id: org, schedule_id: r.schedule.id, at: tx.now, run_id: run.id } }], result: null };
      });
      const prepared = await this.prepare(org, row, job.id, ctx.signal).catch((err: Error): Outcome => ({ end: failed(err instanceof DomainError ? err.code : 'internal_error', err.message) }));
      if ('end' in prepared) return this.finish(context, row.schedule.id, run.id, prepared.end, prepared.pause ?? null);
      ({ version, reused } = prepared);
      material = this.materialSince(org, row, version);
      if (row.schedule.only_on_change && row.last_delivered_version !== null && material.count === 0)
        return this.finish(context, row.schedule.id, run.id, { status: 'skipped', brief_version: version.version, reused, material_change_count: 0, skip_reason: 'no_material_change', error: null }, null);
    } else {
      // a retry delivers the version the first attempt chose
      const v = run.brief_version === null ? null : this.log.briefs.version(org, row.schedule.project_uid, run.brief_version);
      if (!v) return this.finish(context, row.schedule.id, run.id, failed('internal_error', 'the version to deliver is gone'), null);
      [version, reused] = [v, run.reused ?? false];
      material = this.materialSince(org, row, version);
    }

    const attempt = run.attempts + 1;
    const now = ctx.clock.now();
    const { result, verdict } = await this.attempt(org, row, run.id, version, material.changes, attempt, now);
    const end: BriefingRunEnd = {
      status: verdict.kind === 'delivered' ? 'delivered' : 'failed',
      brief_version: version.version,
      reused,
      material_change_count: material.count,
      skip_reason: null,
      error: result.error,
    };
    await this.log.run(context, row.schedule.id, (r, tx) => {
      if (!r || this.log.briefs.run(org, run.id)?.status !== 'running') throw new DomainError(409, 'run_active', 'the run is no longer running');
      const attempted = {
        type: 'BriefingDeliveryAttempted' as const,
        data: {
          org_id: org, schedule_id: r.schedule.id, at: tx.now, run_id: run.id, attempt, http_status: result.http_status, error: result.error,
          next_attempt_at: verdict.kind === 'retry' ? verdict.at : null, brief_version: version.version, reused, material_change_count: material.count,
        },
      };
      const ending = verdict.kind === 'retry' ? [] : decideRunEnd(r.schedule, run.id, end, { org, by: 'system', now: tx.now }, verdict.kind === 'failed' ? verdict.pause : null);
      return { events: [attempted, ...ending], result: null };
    });
    return { run_id: run.id, attempt, status: verdict.kind === 'retry' ? 'running' : end.status };
  }

  /** Project check, recipient and channel checks, then the regeneration. */
  private async prepare(org: string, row: BriefingScheduleRow, jobId: string, signal: AbortSignal): Promise<Outcome> {
    const s = row.schedule;
    const p = await this.sources.node(org, s.project_uid);
    if (!p || p.tombstone_at !== null || p.node_type !== 'Project')
      return { end: { status: 'skipped', brief_version: null, reused: null, material_change_count: 0, skip_reason: 'project_unavailable', error: null } };
    if (s.channel === 'in_app' && this.accounts.membership(org, s.recipient.slice('user:'.length)) === null)
      return { end: failed('recipient_not_member', `${s.recipient} is no longer a member of the organization`), pause: 'recipient_not_member' };
    if (s.channel === 'email' && !this.delivery.smtpConfigured) return { end: failed('smtp_not_configured', 'STRATA_SMTP_URL and STRATA_SMTP_FROM are not set') };
    const chat = this.models.chat;
    if (s.mode === 'llm' || (s.mode === 'auto' && chat !== null)) {
      if (chat === null) return { end: failed('llm_not_configured', 'the schedule asks for a model-backed brief and no model is configured') };
      const r = await this.llmJob.regenerate(org, { project_uid: s.project_uid, title: `Brief of ${s.project_uid}`, requested_by: 'system', force: false, trigger: 'schedule' }, jobId, signal);
      return { version: this.log.briefs.version(org, s.project_uid, r.version)!, reused: r.reused };
    }
    const pinned = (this.log.briefs.current(org, s.project_uid)?.items ?? []).filter((i) => i.pinned);
    const w = await this.sources.structural(org, s.project_uid, pinned, ({ sources, fingerprint, generated }) =>
      this.writer.write(
        systemContext(org, `job:${jobId}`),
        s.project_uid,
        { sources, fingerprint, generated_by: 'structural', model: null, summary: null, generated },
        { trigger: 'schedule', requested_by: 'system', force: false },
      ),
    );
    return { version: w.version, reused: w.reused };
  }

  /** Material changes of the versions after the last delivered one (a first delivery: the version's own). */
  private materialSince(org: string, row: BriefingScheduleRow, v: StoredBriefVersion): { count: number; changes: Change[] } {
    const last = row.last_delivered_version;
    if (last === null) return { count: v.material_change_count, changes: v.changes.filter((c) => c.material) };
    const changes: Change[] = [];
    let count = 0;
    for (let n = last + 1; n <= v.version; n++) {
      const x = n === v.version ? v : this.log.briefs.version(org, row.schedule.project_uid, n);
      if (!x) continue;
      count += x.material_change_count;
      changes.push(...x.changes.filter((c) => c.material));
    }
    return { count, changes };
  }

  private async attempt(org: string, row: BriefingScheduleRow, runId: string, version: StoredBriefVersion, changes: Change[], attempt: number, now: number) {
    const s: BriefingSchedule = row.schedule;
    const project = await this.sources.node(org, s.project_uid);
    // the version as stored minus what only the server keeps
    const { produced_item_ids: _hidden, ...shown } = version as StoredBriefVersion & { produced_item_ids?: unknown };
    void _hidden;
    const d = { run_id: runId, schedule: s, project_label: project?.label ?? s.project_uid, version: shown, material_changes: changes };
    let verdict: AttemptVerdict;
    let result;
    if (s.channel === 'in_app') {
      result = { ok: true, http_status: null, error: null };
      verdict = { kind: 'delivered' };
    } else if (s.channel === 'webhook') {
      const secrets = await this.secrets.signing(org, s.id, row.previous_secret_until, now);
      result = await this.delivery.webhook(d, secrets, Math.floor(now));
      verdict = webhookVerdict(attempt, result.http_status, now, this.delays.webhook);
    } else {
      result = await this.delivery.email(d, now);
      verdict = emailVerdict(attempt, result.ok, now, this.delays.email);
    }
    if (!result.ok) this.logger.warn(`briefing run ${runId}: attempt ${attempt} failed (${result.error?.code})`);
    return { result, verdict };
  }

  private async finish(context: ReturnType<typeof systemContext>, scheduleId: string, runId: string, end: BriefingRunEnd, pause: BriefingPausedReason | null) {
    await this.log.run(context, scheduleId, (r, tx) => {
      if (!r) return { events: [], result: null };
      return { events: decideRunEnd(r.schedule, runId, end, { org: context.org, by: 'system', now: tx.now }, pause), result: null };
    });
    return { run_id: runId, status: end.status };
  }
}
