import { CommandContext } from './command-context';
import { CommitCheck, GraphTx, GuardCheck, OpenStep } from './graph-tx';

export const UNIT_OF_WORK = Symbol('UNIT_OF_WORK');

/**
 * Runs one request's decision and commits everything it staged as ONE atomic append
 * (DESIGN rule 2). Handlers must not do external I/O inside `fn`: call providers first.
 * The promise resolves only after the events are durable and the read models show them
 * (a deferred commit, RunOptions: once the read models show them; durable soon after).
 */
export interface UnitOfWork {
  run<T>(ctx: CommandContext, fn: (tx: GraphTx) => Promise<T>, opts?: RunOptions): Promise<T>;
  /**
   * Resolves once every commit made before the call is durable (starting the fsync of
   * deferred ones now). Call it before anything leaves the process on the strength of a
   * deferred commit, and before answering a client about one.
   */
  durable(): Promise<void>;
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

export interface RunOptions {
  /**
   * `durable` (default): the promise settles once the commit is on disk. `deferred`: it settles
   * right after the log commit (the read models show it), and the commit becomes durable with
   * the next durable commit's fsync or within a short bound; live listeners hear of it only
   * then. Only for a commit whose result nobody outside the process is told about (a run's
   * intermediate steps). Servers mode acknowledges durably anyway: there it changes nothing.
   */
  durability?: 'durable' | 'deferred';
}
