/**
 * The unit of work account changes run in. Embedded: the one unit of work (its batch sees
 * every earlier write). Servers: the same append-then-wait, but the wait is for this
 * process's accounts mirror (AccountsMirror), which is what the next request authenticates
 * and decides against, not for the projection worker's graph read model.
 */
export const ACCOUNTS_UNIT_OF_WORK = Symbol('ACCOUNTS_UNIT_OF_WORK');
