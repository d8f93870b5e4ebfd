/**
 * Streams of the area read models a servers-mode replica keeps in its log mirror beside the
 * accounts: the operational ontology's schemas and proposals (`ontschema-`, `ontproposal-`)
 * and the managed agents' agents and sessions (`agent-`, which also covers governance's
 * `agent-tools-`: a prefix filter, so nothing is read twice). The agents' credits are
 * `CreditsConsumed` on the organization stream, already mirrored with the accounts.
 */
export const AREA_STREAM_PREFIXES: readonly string[] = ['ontschema-', 'ontproposal-', 'agent-'];

/**
 * Graph streams the mirror reads after start rather than before (the bulk of the log): node
 * events feed the governance audit and the ontology's object index, and the organization's
 * graph stream carries the purge and clear markers that index follows.
 */
export const NODE_BACKFILL_PREFIXES: readonly string[] = ['node-', 'graph-'];
