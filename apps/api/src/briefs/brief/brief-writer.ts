import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { BriefGenerator, BriefStreams, BriefTrigger, GeneratedItem, ProjectSources, StoredBriefVersion, composeVersion } from '@strata/domain/briefs';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';

export interface Generation {
  sources: ProjectSources;
  fingerprint: string;
  generated_by: BriefGenerator;
  model: string | null;
  summary: string | null;
  generated: GeneratedItem[];
}

/**
 * Appends a regeneration's version, or reuses the current one (REFERENCE §12.4): decided inside
 * the unit of work against the current version as it is then (a PATCH or another regeneration
 * may have landed meanwhile; pins and corrections carry over), and appended with the brief
 * stream's expected revision.
 */
@Injectable()
export class BriefWriter {
  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly briefs: BriefsReadModel,
  ) {}

  /** The current version when sources and generator are unchanged and `force` is off. */
  reusable(org: string, projectUid: string, fingerprint: string, generatedBy: BriefGenerator, model: string | null, force: boolean): StoredBriefVersion | null {
    if (force) return null;
    const current = this.briefs.current(org, projectUid);
    if (!current || current.source_fingerprint !== fingerprint || current.generated_by !== generatedBy) return null;
    if (generatedBy === 'llm' && current.model !== model) return null;
    return current;
  }

  write(
    ctx: CommandContext,
    projectUid: string,
    g: Generation,
    meta: { trigger: BriefTrigger; requested_by: string; force: boolean },
  ): Promise<{ reused: boolean; version: StoredBriefVersion }> {
    return this.uow.run(ctx, async (tx) => {
      const reused = this.reusable(ctx.org, projectUid, g.fingerprint, g.generated_by, g.model, meta.force);
      if (reused) return { reused: true, version: reused };
      const head = this.briefs.head(ctx.org, projectUid);
      const current = head.current_version === null ? null : this.briefs.version(ctx.org, projectUid, head.current_version);
      const version = composeVersion(
        {
          project_uid: projectUid,
          version: (current?.version ?? 0) + 1,
          now: tx.now,
          trigger: meta.trigger,
          requested_by: meta.requested_by,
          generated_by: g.generated_by,
          model: g.model,
          source_fingerprint: g.fingerprint,
          sources: g.sources,
          summary: g.summary,
          generated: g.generated,
        },
        current,
        this.briefs.itemMemory(ctx.org, projectUid),
      );
      tx.emit(BriefStreams.brief(ctx.org, projectUid), 'BriefVersionCreated', { org_id: ctx.org, ...version }, head.revision ?? 'no_stream');
      return { reused: false, version };
    });
  }

  /** A PATCH's version (already decided against the current one). */
  append<T>(ctx: CommandContext, projectUid: string, decide: (current: StoredBriefVersion | null, now: number) => { version: StoredBriefVersion | null; result: T }): Promise<T> {
    return this.uow.run(ctx, async (tx) => {
      const head = this.briefs.head(ctx.org, projectUid);
      const current = head.current_version === null ? null : this.briefs.version(ctx.org, projectUid, head.current_version);
      const { version, result } = decide(current, tx.now);
      if (version !== null) tx.emit(BriefStreams.brief(ctx.org, projectUid), 'BriefVersionCreated', { org_id: ctx.org, ...version }, head.revision ?? 'no_stream');
      return result;
    });
  }
}
