import { RecordedEvent, isEdgeVersioned, isNodeVersioned } from '@strata/domain/events';
import { recordJson } from '@strata/graph-store/graph-changes';
import { EdgeRow, NodeRow, edgeRow, nodeEventRow } from '@strata/graph-store/sqlite/graph-rows';
import { TextChange, textChangeOf } from './text-document';

/**
 * Replay plans: what a projection will write for an event, worked out from the event alone on
 * the thread that reads the log (replay-reader.ts), so the thread that owns the
 * projections database only binds and runs statements. Planners are pure. An event a planner
 * cannot settle without the database (read-modify-write events, maintenance events, any type
 * it does not know) plans as APPLY_EVENT: the writing thread applies the event itself, the
 * same way a sequential replay would.
 */
export const APPLY_EVENT = 0;
export type ApplyEvent = typeof APPLY_EVENT;

export type GraphPlan = [kind: 1, row: NodeRow] | [kind: 2, row: EdgeRow];
/** null: the event does not concern the projection */
export type Plan<P> = P | ApplyEvent | null;

export function planGraph(e: RecordedEvent): Plan<GraphPlan> {
  if (isNodeVersioned(e))
    return [1, nodeEventRow(e)];
  if (isEdgeVersioned(e))
    return [2, edgeRow(e.metadata.org_id, e.data.edge, e.revision, e.type === 'EdgeCreated', recordJson(e, 'edge'))];
  return APPLY_EVENT;
}

/** The full-text index is settled by the event alone (text-document.ts). */
export function planText(e: RecordedEvent): Plan<TextChange> {
  return textChangeOf(e);
}

/**
 * For a projection that never reacts to the events of node and edge streams (the accounts
 * read model): those are the bulk of a log, and are skipped; the rest is applied as it is.
 */
export function planOutsideGraphObjects(e: RecordedEvent): Plan<never> {
  return e.stream.startsWith('node-') || e.stream.startsWith('edge-') ? null : APPLY_EVENT;
}

/** The planners a replay's reading thread knows, by the name a projection gives. */
export const REPLAY_PLANNERS = { graph: planGraph, text: planText, outsideGraphObjects: planOutsideGraphObjects } as const;
export type ReplayPlannerName = keyof typeof REPLAY_PLANNERS;
