/** What a client may send on the live socket. Anything else closes it with 4400. */
export type WsClientMessage =
  | { type: 'auth'; token: string }
  | { type: 'ping' }
  | { type: 'subscribe'; after_seq?: number; fields: Record<string, unknown> };

export class WsMessageError extends Error {}

/** the largest text frame a client may send: commands are small */
export const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;

/**
 * Parses one text frame. `subscribe` keeps its other fields for the channel to validate
 * (agent_ids, types…); the generic part checks only the shape and `after_seq`.
 */
export function parseClientMessage(raw: string): WsClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new WsMessageError('message is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new WsMessageError('message must be a JSON object');
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'auth':
      if (typeof m.token !== 'string' || m.token === '') throw new WsMessageError('auth needs a token string');
      return { type: 'auth', token: m.token };
    case 'ping':
      return { type: 'ping' };
    case 'subscribe': {
      const { type: _type, after_seq, ...fields } = m;
      if (after_seq !== undefined && after_seq !== null && !(Number.isSafeInteger(after_seq) && (after_seq as number) >= 0))
        throw new WsMessageError('after_seq must be a non-negative integer');
      return { type: 'subscribe', ...(typeof after_seq === 'number' ? { after_seq } : {}), fields };
    }
    default:
      throw new WsMessageError(`unknown message type ${JSON.stringify(typeof m.type === 'string' ? m.type : String(m.type))}`);
  }
}
