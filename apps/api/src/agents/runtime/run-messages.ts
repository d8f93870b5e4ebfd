import type { ChatMessage } from '@strata/ai/llm/chat-model.port';
import type { SessionEventRow } from '@strata/projections/agents/agents-read-model';

/** One run's recorded events as chat messages: the user's message, tool turns, the answer. */
export function toMessages(events: readonly SessionEventRow[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let turn: Extract<ChatMessage, { role: 'assistant' }> | null = null;
  for (const e of events) {
    if (e.type === 'message.user') out.push({ role: 'user', content: e.data.content });
    else if (e.type === 'tool.call') {
      if (!turn) out.push((turn = { role: 'assistant', content: '', toolCalls: [] }));
      turn.toolCalls!.push({ id: e.data.tool_call_id, name: e.data.name, arguments: e.data.arguments });
    } else if (e.type === 'tool.result') {
      turn = null;
      const d = e.data;
      const body = d.status === 'ok' ? d.result : { error: d.error, result: d.result };
      const text = JSON.stringify(body ?? null);
      out.push({ role: 'tool', toolCallId: d.tool_call_id, content: text.length > 50_000 ? `${text.slice(0, 50_000)}…[truncated]` : text, isError: d.status !== 'ok' });
    } else if (e.type === 'message.assistant' && !e.data.interrupted) out.push({ role: 'assistant', content: e.data.content });
    else if (e.type === 'inference.completed') turn = null;
  }
  return out;
}

/** the characters a turn costs in the history budget (about 4 per token) */
export function sizeOf(m: readonly ChatMessage[]): number {
  return m.reduce((n, x) => n + x.content.length + (x.role === 'assistant' ? JSON.stringify(x.toolCalls ?? []).length : 0), 0);
}
