import { decideMirrorVersion, GraphChanges } from '@strata/domain/graph';
import { Injectable } from '@nestjs/common';
import { NodeRecord } from '@strata/domain/records';
import { createNode } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/**
 * The Approval node a high-risk proposal waits on (REFERENCE §11): created with the proposal,
 * decided when a reviewer approves or rejects it.
 */
@Injectable()
export class ApprovalNodes {
  open(tx: GraphTx, proposalId: string, label: string): NodeRecord {
    return createNode(tx, {
      label: `Review ontology proposal: ${label}`,
      props: { target_uid: proposalId, target_type: 'OntologyProposal', status: 'pending', requested_at: tx.now },
    }, { forcedType: 'Approval' });
  }

  async decide(tx: GraphTx, uid: string, status: 'approved' | 'denied', by: string, reason: string | null = null): Promise<void> {
    const n = await tx.node(uid);
    if (!n || n.tombstone_at !== null) return;
    const props = { ...(n.props as unknown as Record<string, unknown>), status, decided_at: tx.now, decided_by: by, reason };
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideMirrorVersion(n, props, tx.now), `proposal ${status}`));
  }
}
