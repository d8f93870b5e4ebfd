import { CommandContext } from './command-context';
import { CommitCheck, GraphTx, GuardCheck, OpenStep } from './graph-tx';

export const UNIT_OF_WORK = Symbol('UNIT_OF_WORK');

/**
 * Runs one request's decision and commits everything it staged as ONE atomic append
 * (DESIGN rule 2). Handlers must not do external I/O inside `fn`: call providers first.
 * The promise resolves only after the events are durable and the read models show them.
 */
export interface UnitOfWork {
  run<T>(ctx: CommandContext, fn: (tx: GraphTx) => Promise<T>): Promise<T>;
  /**
   * Adds a rule checked on every request that staged changes, whatever its route, after the
   * handler and before the append (accounts register the plan's node limit here).
   */
  addCommitCheck(check: CommitCheck, stage?: CheckStage): void;
  /** Adds a step run on every request's transaction before its handler decides. */
  addOpenStep(step: OpenStep): void;
  /** Adds a rule that may answer a request before its handler's state guard (a 409) does. */
  addGuardCheck(check: GuardCheck, stage?: CheckStage): void;
}

/**
 * When a check runs: `access` rules (the Space rule, Project grants, limits) before `policy`
 * ones (structured policies), whatever order the modules registering them were built in, so
 * an access error never produces a policy decision (REFERENCE §13.6).
 */
export type CheckStage = 'access' | 'policy';

/** Inserts a check in its stage: access checks before every policy check, each stage in registration order. */
export function addInStage<T>(list: T[], policyCount: number, check: T, stage: CheckStage = 'access'): number {
  if (stage === 'policy') {
    list.push(check);
    return policyCount + 1;
  }
  list.splice(list.length - policyCount, 0, check);
  return policyCount;
}
