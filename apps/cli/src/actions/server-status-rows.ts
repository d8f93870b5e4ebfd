import type { StatusRow } from './projections-status';

/**
 * Servers mode: one row per projection the worker runs, built or not, then any checkpoint
 * the code no longer has (left by another version of the worker).
 */
export function serverStatusRows(
  known: readonly string[],
  checkpoints: { _id: string; version: number; position: number; last_error: string | null }[],
  head: number,
): StatusRow[] {
  const docs = new Map(checkpoints.map((d) => [d._id, d]));
  const names = [...known, ...[...docs.keys()].filter((n) => !known.includes(n)).sort()];
  return names.map((name) => {
    const d = docs.get(name);
    let note: string | null = null;
    if (!d) note = 'not built yet: the projection worker builds it';
    else if (!known.includes(name)) note = 'no such projection in this code (a checkpoint left by another version)';
    else if (d.version < 0) note = 'rebuild requested: the worker rebuilds it';
    const position = d?.position ?? 0;
    return { name, version: null, stored_version: d?.version ?? null, checkpoint: position, head, lag: Math.max(0, head - position), last_error: d?.last_error ?? null, note };
  });
}
