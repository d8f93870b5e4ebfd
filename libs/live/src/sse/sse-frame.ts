/** One Server-Sent Event. No `id` means the client's last event id does not move. */
export interface SseFrame {
  event?: string;
  id?: string;
  /** a string is sent as is; anything else as JSON */
  data: unknown;
}

/**
 * The wire form of a frame: `event:`/`id:` lines, then one `data:` line per line of the data
 * (a bare newline inside data would end the event early), then a blank line. CR and LF in
 * the event name or id would break the framing the same way, so they are refused.
 */
export function formatSseFrame(frame: SseFrame): string {
  let out = '';
  if (frame.event !== undefined) out += `event: ${singleLine(frame.event, 'event')}\n`;
  if (frame.id !== undefined) out += `id: ${singleLine(frame.id, 'id')}\n`;
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export function formatSseComment(text: string): string {
  return `: ${text.replace(/\r\n|\r|\n/g, ' ')}\n\n`;
}

function singleLine(value: string, what: string): string {
  if (/[\r\n\0]/.test(value)) throw new Error(`SSE ${what} must be one line without NUL`);
  return value;
}
