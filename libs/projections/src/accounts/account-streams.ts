/**
 * The streams that hold account events (DESIGN rule 3: `org-<id>`, `user-<id>`, `apikey-<id>`).
 * Graph streams are `node-`, `edge-`, `graph-`… so these prefixes never match graph data.
 */
export const ACCOUNT_STREAM_PREFIXES: readonly string[] = ['org-', 'user-', 'apikey-'];

export function isAccountStream(stream: string): boolean {
  for (const p of ACCOUNT_STREAM_PREFIXES) if (stream.startsWith(p)) return true;
  return false;
}
