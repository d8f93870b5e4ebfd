import { Inject, Injectable } from '@nestjs/common';
import { LANGUAGE_MODELS, LanguageModels, LlmNotConfiguredError } from '@strata/ai';
import { AuthContext } from '@strata/auth/auth-context';
import { assertCanWrite } from '@strata/auth/request-context.decorator';
import {
  ACTION_ROLE,
  BRIEF_ITEM_KINDS,
  Citation,
  ItemPatch,
  ProjectRole,
  ProjectSources,
  SourceIdentities,
  StoredBriefVersion,
  anchorQuoteBytes,
  assertProjectRole,
  citationOf,
  decideItemPatch,
} from '@strata/domain/briefs';
import { DomainError, Errors } from '@strata/domain/errors';
import { Body, coerceQuery, readPage } from '@strata/domain/validation';
import { JOB_QUEUE, JobQueue, QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import { pathPositiveInt } from '../../platform/http/path-params';
import { ProjectAccessService } from '../access/project-access.service';
import { ProjectSourcesService } from '../sources/project-sources.service';
import { BRIEF_REGENERATE_JOB_KIND, BriefJobInput } from '../generation/brief-regenerate-job.handler';
import { readItemPatch, invalidCitation } from './brief-item-input';
import { itemVisible, presentVersion } from './brief-presenter';
import { BriefWriter } from './brief-writer';
import { readRegenerate } from './brief-regenerate-input';

const principalId = (auth: AuthContext) => `${auth.principal.kind}:${auth.principal.id}`;

export function briefContext(auth: AuthContext, requestId: string): CommandContext {
  return { org: auth.org_id, principal: auth.principal, credential_id: auth.api_key_id, agent_id: auth.bound_agent_id, request_id: requestId };
}

/** Whether any admitted source is hidden from the caller (then the summary is withheld). */
function anyHidden(s: SourceIdentities, scope: ReadScope): boolean {
  if (!scope.restricted) return false;
  for (const m of [s.documents, s.chunks, s.nodes]) for (const u of m.keys()) if (!scope.allows(u)) return true;
  return false;
}

/** The brief routes (REFERENCE §12.6). */
@Injectable()
export class BriefHandlers {
  constructor(
    private readonly access: ProjectAccessService,
    private readonly sources: ProjectSourcesService,
    private readonly briefs: BriefsReadModel,
    private readonly writer: BriefWriter,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(LANGUAGE_MODELS) private readonly models: LanguageModels,
  ) {}

  /** A write route's access: the Project, then `read_only_credential`, then the role. */
  private async writeAccess(auth: AuthContext, uid: string, min: ProjectRole) {
    const a = await this.access.require(auth, uid, 'viewer');
    // a read-only key is refused as such; a user's JWT is judged by its role on the Project
    if (auth.credential === 'api_key') assertCanWrite(auth);
    assertProjectRole(a.role, min, uid);
    return a;
  }

  /** The version `v` was compared with, read only for a caller from whom something may be withheld. */
  private previousOf(org: string, uid: string, v: StoredBriefVersion, scope: ReadScope): StoredBriefVersion | null {
    return scope.restricted && v.previous_version !== null ? this.briefs.version(org, uid, v.previous_version) : null;
  }

  /** P's pending or running LLM regeneration, if any. */
  async activeJob(org: string, projectUid: string): Promise<QueuedJob | null> {
    for (const status of ['running', 'pending'] as const)
      for (const j of await this.queue.list(org, { kind: BRIEF_REGENERATE_JOB_KIND, status }))
        if ((j.input as BriefJobInput).project_uid === projectUid) return j;
    return null;
  }

  async state(auth: AuthContext, uid: string) {
    const { scope } = await this.access.require(auth, uid, 'viewer');
    const org = auth.org_id;
    const { ids: s, fingerprint } = await this.sources.fingerprinted(org, uid);
    const head = this.briefs.head(org, uid);
    const current = head.current_version === null ? null : this.briefs.version(org, uid, head.current_version);
    const job = await this.activeJob(org, uid);
    const shown = current ? presentVersion(current, scope, anyHidden(s, scope), this.previousOf(org, uid, current, scope)) : null;
    return {
      project_uid: uid,
      status: current === null ? 'none' : current.source_fingerprint === fingerprint ? 'current' : 'stale',
      current_version: current?.version ?? null,
      source_fingerprint: fingerprint,
      regeneration: job ? { job_id: job.id, status: job.status === 'running' ? 'processing' : 'pending', requested_at: job.created_at } : null,
      last_error: head.last_error,
      withheld_items: shown?.withheld ?? 0,
      brief: shown?.version ?? null,
    };
  }

  /** 200 reused, 201 new (structural), 202 queued (llm). */
  async regenerate(auth: AuthContext, uid: string, body: unknown, requestId: string): Promise<{ status: 200 | 201 | 202; body: unknown }> {
    // the Project first (§12.1), then the body
    await this.access.project(auth, uid);
    const req = readRegenerate(body);
    const { scope } = await this.writeAccess(auth, uid, 'agent');
    const org = auth.org_id;
    const chat = this.models.chat;
    if (req.mode === 'llm' && chat === null) throw new LlmNotConfiguredError('mode llm');
    const active = await this.activeJob(org, uid);
    if (active) throw new DomainError(409, 'job_active', `a brief regeneration of this Project is ${active.status}`, { job_id: active.id });
    if (req.mode === 'llm' || (req.mode === 'auto' && chat !== null)) {
      // the job loads the sources itself; here only the fingerprint decides reuse
      const { ids, fingerprint } = await this.sources.fingerprinted(org, uid);
      const hidden = anyHidden(ids, scope);
      const reused = this.writer.reusable(org, uid, fingerprint, 'llm', chat!.model, req.force);
      if (reused) return { status: 200, body: { reused: true, version: presentVersion(reused, scope, hidden, this.previousOf(org, uid, reused, scope)).version } };
      const input: BriefJobInput = { project_uid: uid, title: `Brief of ${uid}`, requested_by: principalId(auth), force: req.force, trigger: 'regenerate' };
      const { job } = await this.queue.enqueue({ kind: BRIEF_REGENERATE_JOB_KIND, org, input, dedupeKey: `brief:${uid}` });
      return { status: 202, body: { reused: false, job_id: job.id, status: 'pending' } };
    }
    const pinned = (this.briefs.current(org, uid)?.items ?? []).filter((i) => i.pinned);
    return this.sources.structural(org, uid, pinned, async ({ sources, fingerprint, generated }) => {
      const r = await this.writer.write(
        briefContext(auth, requestId),
        uid,
        { sources, fingerprint, generated_by: 'structural', model: null, summary: null, generated },
        { trigger: 'regenerate', requested_by: principalId(auth), force: req.force },
      );
      return { status: r.reused ? 200 : 201, body: { reused: r.reused, version: presentVersion(r.version, scope, anyHidden(sources, scope), this.previousOf(org, uid, r.version, scope)).version } };
    });
  }

  async patchItem(auth: AuthContext, uid: string, itemId: string, body: unknown, requestId: string) {
    await this.access.project(auth, uid);
    const req = readItemPatch(body);
    const { scope } = await this.writeAccess(auth, uid, ACTION_ROLE[req.action]);
    const org = auth.org_id;
    let patch: ItemPatch;
    let s: ProjectSources | null = null;
    if (req.action === 'correct') {
      s = await this.sources.load(org, uid);
      patch = { action: 'correct', text: req.text!, citations: await this.anchorCitations(org, s, scope, req.citations!), reason: req.reason };
    } else patch = { action: req.action };
    const by = principalId(auth);
    const out = await this.writer.append(briefContext(auth, requestId), uid, (current, now) => {
      const target = current?.items.find((i) => i.id === itemId);
      // an item withheld from the caller is absent for it, as an unknown one
      if (!current || (target && !itemVisible(target, scope))) throw new DomainError(404, 'not_found', `item ${itemId} is not in the current version`, { field: 'item_id', uid: itemId });
      const o = decideItemPatch(current, itemId, patch, by, now, req.expected_version);
      return { version: o.changed ? o.version : null, result: o };
    });
    const hidden = s ? anyHidden(s, scope) : scope.restricted;
    return { changed: out.changed, version: presentVersion(out.version, scope, hidden, this.previousOf(org, uid, out.version, scope)).version, item: out.item };
  }

  /** Anchors each correction citation byte for byte in an admitted chunk (REFERENCE §12.6). */
  private async anchorCitations(org: string, s: ProjectSources, scope: ReadScope, reqs: { chunk_uid: string; quote: string; char_start?: number; char_end?: number }[]): Promise<Citation[]> {
    const nodes = await this.sources.nodes(org, reqs.map((r) => r.chunk_uid));
    return reqs.map((r, index) => {
      const n = nodes.get(r.chunk_uid);
      if (!n || n.tombstone_at !== null || n.node_type !== 'Chunk' || !scope.allows(r.chunk_uid)) throw Errors.refNotFound(`citations[${index}].chunk_uid`, r.chunk_uid);
      const chunk = s.chunks.get(r.chunk_uid);
      if (!chunk) throw invalidCitation(index, 'not_admitted');
      if (!scope.allows(chunk.document_uid)) throw Errors.refNotFound(`citations[${index}].chunk_uid`, r.chunk_uid);
      const a = anchorQuoteBytes(chunk.content, r.quote, r.char_start, r.char_end);
      if (typeof a === 'string') throw invalidCitation(index, a);
      return citationOf(s, chunk, null, a.start, a.end, r.quote);
    });
  }

  async history(auth: AuthContext, uid: string, query: Body) {
    const { scope } = await this.access.require(auth, uid, 'viewer');
    const { limit, offset } = readPage(coerceQuery(query, ['limit', 'offset']), { limit: 20, max: 100 });
    const page = this.briefs.history(auth.org_id, uid, limit, offset);
    return {
      items: page.items.map((v) => {
        const shown = presentVersion(v, scope, scope.restricted, this.previousOf(auth.org_id, uid, v, scope)).version;
        const counts = Object.fromEntries(BRIEF_ITEM_KINDS.map((k) => [k, shown.items.filter((i) => i.kind === k).length]));
        const material = shown.changes.filter((c) => c.material);
        return {
          version: v.version,
          created_at: v.created_at,
          trigger: v.trigger,
          generated_by: v.generated_by,
          source_fingerprint: v.source_fingerprint,
          item_counts: counts,
          material_change_count: shown.material_change_count,
          material_changes: material,
        };
      }),
      has_more: page.has_more,
      limit,
      offset,
    };
  }

  async historyVersion(auth: AuthContext, uid: string, rawVersion: string) {
    const { scope } = await this.access.require(auth, uid, 'viewer');
    const version = pathPositiveInt(rawVersion, 'version');
    const v: StoredBriefVersion | null = this.briefs.version(auth.org_id, uid, version);
    if (!v) throw Errors.notFound(`the brief has no version ${version}`, { field: 'version' });
    const hidden = scope.restricted ? anyHidden(await this.sources.identities(auth.org_id, uid), scope) : false;
    return presentVersion(v, scope, hidden, this.previousOf(auth.org_id, uid, v, scope)).version;
  }
}
