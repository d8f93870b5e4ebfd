import { Streams } from '@strata/domain/events';
import { embeddingTextOf } from '@strata/domain/retrieval';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { RecordedEmbedding, textHash } from '@strata/domain/retrieval/embedding-events';

export interface ComputedVector {
  uid: string;
  vector: number[];
  /** hash of the text that was embedded */
  text_hash: string;
}

/** The context of the server's own embedding writes. */
export function systemContext(org: string, requestId: string): CommandContext {
  return { org, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: requestId };
}

/**
 * Records provider vectors as `EmbeddingSet` events (so a rebuild never calls the provider).
 * A vector is dropped when its node is gone, tombstoned or pinned by a client vector, or when
 * the node's text changed since it was embedded (the change queues a fresh embedding).
 */
export async function recordProviderVectors(uow: UnitOfWork, org: string, model: string, items: ComputedVector[], requestId: string, isPinned: (uid: string) => boolean): Promise<number> {
  if (!items.length) return 0;
  return uow.run(systemContext(org, requestId), async (tx) => {
    const nodes = await tx.reader.getNodes(org, items.map((i) => i.uid));
    let n = 0;
    for (const item of items) {
      const node = nodes.get(item.uid);
      if (!node || node.tombstone_at !== null || isPinned(item.uid) || textHash(embeddingTextOf(node)) !== item.text_hash) continue;
      const data: RecordedEmbedding = { uid: item.uid, vector: item.vector, model, updated_at: tx.now, source: 'provider', text_hash: item.text_hash };
      tx.emit(Streams.embedding(org, item.uid), 'EmbeddingSet', data);
      n++;
    }
    return n;
  });
}
