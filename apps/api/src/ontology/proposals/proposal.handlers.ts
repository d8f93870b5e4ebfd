import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { DomainError, Errors } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import {
  OntologyErrors,
  OntologyEventTypes as T,
  ProposalEdits,
  ProposalRecord,
  assertProposalMove,
  checkFieldEdits,
  decideApprove,
  decideEditProposal,
  decideReject,
} from '@strata/domain/ontology';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ProposalFilter } from '@strata/projections/ontology/ontology-read-model';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { OntologyScope } from '../ontology-scope';
import { paginated, presentProposal } from '../ontology-presenters';
import { ProposalApplier } from '@strata/ontology/proposal-applier';
import { namedObjectType } from '@strata/ontology/domain-objects';
import { ApprovalNodes } from '@strata/ontology/approval-nodes';

/** Reads the edits of a PATCH or an approval: `{canonical_name?, fields?, aliases?}`. */
export function readEdits(raw: Record<string, unknown>): ProposalEdits {
  const out: ProposalEdits = {};
  if (raw.canonical_name !== undefined && raw.canonical_name !== null) {
    if (typeof raw.canonical_name !== 'string' || !raw.canonical_name.trim()) throw Errors.invalidField('edits.canonical_name', 'edits.canonical_name must be a non-empty string');
    out.canonical_name = raw.canonical_name.trim();
  }
  if (raw.fields !== undefined && raw.fields !== null) {
    if (typeof raw.fields !== 'object' || Array.isArray(raw.fields)) throw Errors.invalidField('edits.fields', 'edits.fields must be an object');
    out.fields = raw.fields as Record<string, unknown>;
  }
  if (raw.aliases !== undefined && raw.aliases !== null) {
    if (!Array.isArray(raw.aliases) || raw.aliases.some((a) => typeof a !== 'string')) throw Errors.invalidField('edits.aliases', 'edits.aliases must be an array of strings');
    out.aliases = raw.aliases as string[];
  }
  return out;
}

/** Reviewed proposals: list, read, edit, approve (applies at once), reject, apply, batches. */
@Injectable()
export class ProposalHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly store: OntologyStore,
    private readonly applier: ProposalApplier,
    private readonly scope: OntologyScope,
    private readonly approvals: ApprovalNodes,
  ) {}

  async list(auth: AuthContext, f: ProposalFilter, limit: number, offset: number) {
    const { seen } = await this.access(auth);
    if (!seen) {
      const rows = this.store.read.proposals(auth.org_id, f, limit + 1, offset);
      return paginated(rows.slice(0, limit).map(presentProposal), limit, offset, rows.length > limit);
    }
    // the hidden ones are left out before paging, so offsets count only what the caller sees
    const rows = this.store.read.proposals(auth.org_id, f, -1, 0).filter(seen);
    return paginated(rows.slice(offset, offset + limit).map(presentProposal), limit, offset, rows.length > offset + limit);
  }

  /**
   * What the caller may see, from one read of its scope: `visible`, a node (for writing an
   * object); `seen`, a proposal, which carries the names, fields and uids of the nodes it was
   * drawn from and wrote, so for a scoped caller it exists only when every one of those nodes is
   * readable (REFERENCE §13.1). `seen` is null when nothing is hidden from the caller.
   */
  private async access(auth: AuthContext): Promise<{ visible: (uid: string) => boolean; seen: ((p: ProposalRecord) => boolean) | null }> {
    const scope = await this.scope.of(auth);
    if (!scope) return { visible: () => true, seen: null };
    return {
      visible: (uid) => scope.allows(uid),
      seen: (p) => (!p.proposed_node_uid || scope.allows(p.proposed_node_uid)) && p.source_uids.every((u) => scope.allows(u)),
    };
  }

  private load(auth: AuthContext, id: string, seen: ((p: ProposalRecord) => boolean) | null) {
    const row = this.store.read.proposal(auth.org_id, id);
    if (!row || (seen && !seen(row.proposal))) throw OntologyErrors.proposalNotFound(id);
    return row;
  }

  async get(auth: AuthContext, id: string) {
    return presentProposal(this.load(auth, id, (await this.access(auth)).seen).proposal);
  }

  async edit(auth: AuthContext, rid: string, id: string, edits: ProposalEdits) {
    const { seen } = await this.access(auth);
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { proposal, revision } = this.load(auth, id, seen);
      const next = decideEditProposal(proposal, edits, auth.principal.id, tx.now);
      this.checkEditedFields(auth.org_id, proposal, edits);
      tx.emit(Streams.ontologyProposal(auth.org_id, id), T.OntologyProposalEdited, { proposal: next }, revision);
      return presentProposal(next);
    });
  }

  /** Approves (with optional edits) and applies in the same unit: the response is normally `applied`. */
  async approve(auth: AuthContext, rid: string, id: string, edits: ProposalEdits | undefined) {
    const { visible, seen } = await this.access(auth);
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { proposal, revision } = this.load(auth, id, seen);
      const stream = Streams.ontologyProposal(auth.org_id, id);
      let p = proposal;
      if (edits && Object.keys(edits).length) {
        p = decideEditProposal(p, edits, auth.principal.id, tx.now);
        this.checkEditedFields(auth.org_id, proposal, edits);
        tx.emit(stream, T.OntologyProposalEdited, { proposal: p }, revision);
      }
      p = decideApprove(p, auth.principal.id, tx.now);
      tx.emit(stream, T.OntologyProposalApproved, { proposal: p }, revision);
      if (p.approval_uid) await this.approvals.decide(tx, p.approval_uid, 'approved', auth.principal.id);
      p = await this.applyStaged(tx, p, visible, revision);
      return presentProposal(p);
    });
  }

  async reject(auth: AuthContext, rid: string, id: string, reason: string | null) {
    const { seen } = await this.access(auth);
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { proposal, revision } = this.load(auth, id, seen);
      const p = decideReject(proposal, reason, auth.principal.id, tx.now);
      tx.emit(Streams.ontologyProposal(auth.org_id, id), T.OntologyProposalRejected, { proposal: p }, revision);
      if (p.approval_uid) await this.approvals.decide(tx, p.approval_uid, 'denied', auth.principal.id, reason);
      return presentProposal(p);
    });
  }

  /** Idempotent retry of an approved or failed proposal; an applied one returns unchanged. */
  async apply(auth: AuthContext, rid: string, id: string) {
    const { visible, seen } = await this.access(auth);
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { proposal, revision } = this.load(auth, id, seen);
      assertProposalMove(proposal, 'apply');
      if (proposal.review_status === 'applied') return presentProposal(proposal);
      return presentProposal(await this.applyStaged(tx, proposal, visible, revision));
    });
  }

  async batch(auth: AuthContext, rid: string, ids: string[], move: 'approve' | 'reject', text: string | null) {
    const results: { id: string; review_status: string | null; error?: { code: string; message: string } }[] = [];
    // each proposal on its own unit of work: one failure leaves the others done (REFERENCE §1.8)
    for (const id of ids) {
      try {
        const r = move === 'approve' ? await this.approve(auth, rid, id, undefined) : await this.reject(auth, rid, id, text);
        results.push({ id, review_status: r.review_status });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const current = err.code === 'not_found' ? null : this.store.read.proposal(auth.org_id, id);
        results.push({ id, review_status: current?.proposal.review_status ?? null, error: { code: err.code, message: err.message } });
      }
    }
    const failed = results.filter((r) => r.error).length;
    return { results, succeeded: results.length - failed, failed };
  }

  /**
   * Edited fields are judged against the proposal's object type when they are made (422
   * `schema_validation_failed`, nothing kept): an edit its type refuses would only surface as
   * `apply_failed`, and leave the proposal unable to be edited or rejected again.
   */
  private checkEditedFields(org: string, p: ProposalRecord, edits: ProposalEdits): void {
    if (!edits.fields) return;
    checkFieldEdits(namedObjectType(this.store.types(org, p.schema_id), p.object_type), edits.fields);
  }

  /** Writes an approved proposal's object (applied, or apply_failed with the reason). */
  applyStaged(tx: GraphTx, p: ProposalRecord, visible: (uid: string) => boolean, revision: number | 'no_stream'): Promise<ProposalRecord> {
    return this.applier.applyStaged(tx, p, visible, revision);
  }
}
