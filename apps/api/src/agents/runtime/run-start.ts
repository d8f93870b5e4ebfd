import { AgentRecord, AgentStreams, RunRecord, SessionRecord, agentNodeProps } from '@strata/domain/agents';
import { NodeRecord } from '@strata/domain/records';
import { createEdge, createNode } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/** The session's node; recreated when it was tombstoned or purged (REFERENCE §16.10). */
export async function sessionNodeOf(tx: GraphTx, s: Pick<SessionRecord, 'node_uid' | 'title' | 'created_at'>): Promise<NodeRecord> {
  const n = await tx.node(s.node_uid);
  if (n && n.tombstone_at === null) return n;
  return createNode(tx, { label: s.title ?? 'Agent session', props: { session_type: 'agent', started_at: s.created_at } }, { forcedType: 'Session' });
}

/**
 * The agent's node at a run's start; recreated when it was tombstoned or purged (REFERENCE
 * §16.10), the agent's record then moved to the new node (`AgentUpdated`, `changed:
 * ["node_uid"]`) so that the run's Executions are `ExecutedBy` a live Agent node.
 */
async function agentNodeAtStart(tx: GraphTx, agent: AgentRecord): Promise<void> {
  const n = await tx.node(agent.node_uid);
  if (n && n.tombstone_at === null) return;
  const node = createNode(tx, { label: agent.name, props: agentNodeProps(agent) }, { forcedType: 'Agent' });
  tx.emit(AgentStreams.agent(agent.org_id, agent.id), 'AgentUpdated', { agent: { ...agent, node_uid: node.uid }, changed: ['node_uid'], by: 'system', at: tx.now });
}

/**
 * `run.started` with its Trace node (Trace → Session CapturedIn), labelled `Run <n>` with the
 * run's place in its session, staged in the caller's unit of work: the run job's when the run
 * waited, the message's own when it can start at once (one append fewer on the path of every
 * message). A Session or Agent node tombstoned or purged since is recreated first, and the
 * session's new node recorded with the start.
 */
export async function stageRunStart(
  tx: GraphTx,
  s: Pick<SessionRecord, 'org_id' | 'agent_id' | 'id' | 'node_uid'>,
  run: Pick<RunRecord, 'id' | 'trigger' | 'model'>,
  runNumber: number,
  sessionNode: NodeRecord,
  agent: AgentRecord,
): Promise<void> {
  await agentNodeAtStart(tx, agent);
  const trace = createNode(tx, { label: `Run ${runNumber}`, props: { trace_type: 'execution', session_uid: sessionNode.uid, entry_count: 0, started_at: tx.now, compressed: false } }, { forcedType: 'Trace' });
  createEdge(tx, { edge_type: 'CapturedIn' }, trace, sessionNode);
  tx.emit(AgentStreams.session(s.org_id, s.id), 'AgentRunStarted', {
    org_id: s.org_id, agent_id: s.agent_id, session_id: s.id, run_id: run.id, at: tx.now, trigger: run.trigger, model: run.model, trace_uid: trace.uid,
    ...(sessionNode.uid !== s.node_uid ? { session_node_uid: sessionNode.uid } : {}),
  });
}
