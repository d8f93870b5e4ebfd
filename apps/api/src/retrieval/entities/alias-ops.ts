import { normaliseText } from '@strata/domain/catalogue';
import { Errors } from '@strata/domain/errors';
import { AliasRemovedData, AliasSetData, Streams } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { Body, present, readNumber, readString } from '@strata/domain/validation';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

export const ALIAS_TEXT_MAX = 500;

/** Alias text (≤ 500 characters) that still has letters or digits once normalised. */
export function readAliasText(body: Body, field = 'text'): { text: string; norm: string } {
  const text = readString(body, field, { required: true, trim: true, max: ALIAS_TEXT_MAX })!;
  const norm = normaliseText(text);
  if (!norm) throw Errors.invalidField(field, `${field} must contain at least one letter or digit`);
  return { text, norm };
}

/** `score`, or its accepted aliases `alias_score` and `match_score`; default 1.0, range 0–1. */
export function readAliasScore(body: Body): number {
  const field = ['score', 'alias_score', 'match_score'].find((f) => present(body, f)) ?? 'score';
  return readNumber(body, field, { min: 0, max: 1 }) ?? 1.0;
}

/**
 * Stages an alias on its node's stream (so purging the node takes its aliases out of the log
 * too). The node must have been read through `tx`. Returns whether the pair is new.
 */
export async function stageAlias(tx: GraphTx, node: NodeRecord, text: string, norm: string, score: number): Promise<{ created: boolean; created_at: number }> {
  const existing = (await tx.reader.aliasesOf(tx.org, node.uid)).find((a) => a.norm === norm);
  const created_at = existing?.created_at ?? tx.now;
  const data: AliasSetData = { text: existing?.text ?? text, norm, canonical_uid: node.uid, score, created_at };
  tx.emit(Streams.node(tx.org, node.uid), 'AliasSet', data);
  return { created: !existing, created_at };
}

export function stageAliasRemoval(tx: GraphTx, nodeUid: string, norm: string): void {
  const data: AliasRemovedData = { norm, canonical_uid: nodeUid };
  tx.emit(Streams.node(tx.org, nodeUid), 'AliasRemoved', data);
}
