import { RecordedEvent } from '@strata/domain/events';
import type { ReplayPlannerName } from './embedded/replay-plan';

/**
 * A projection on the embedded default: applies events synchronously inside the runner's
 * transaction on the projections database, so its data and checkpoint commit together.
 */
export interface EmbeddedProjection {
  readonly name: string;
  /** bump to make the service rebuild this projection */
  readonly version: number;
  apply(event: RecordedEvent): void;
  /**
   * Writes what `apply` left for the end of a unit of work (Knowledge Health evaluates each
   * touched subject once per unit). Whoever applies events calls it before each commit.
   */
  flush?(): void;
  /** drops every row this projection owns (before a rebuild) */
  reset(): void;
  /**
   * The runner's transaction was rolled back, or its database swapped for a rebuilt copy:
   * anything kept in memory from rows written or read since the last commit may be gone.
   */
  rolledBack?(): void;
}

/**
 * An embedded projection whose replay can be planned on the log-reading thread: the planner
 * of that name (replay-plan.ts) turns each event into a plan, and `applyPlanned` writes it.
 */
export interface PlannedProjection extends EmbeddedProjection {
  readonly replayPlanner: ReplayPlannerName;
  applyPlanned(plan: unknown): void;
}

export function isPlanned(p: EmbeddedProjection): p is PlannedProjection {
  return typeof (p as Partial<PlannedProjection>).replayPlanner === 'string' && typeof (p as Partial<PlannedProjection>).applyPlanned === 'function';
}

/** Status line for `strata projections status`. */
export interface ProjectionStatus {
  name: string;
  version: number;
  stored_version: number | null;
  checkpoint: number;
  head: number;
  lag: number;
  last_error: string | null;
}

/** Ends the unit of work of every projection that defers work to it (before a commit). */
export function flushProjections(projections: readonly EmbeddedProjection[]): void {
  for (const p of projections) p.flush?.();
}
