/** How the pages word what the server returns: pure, shared by every page. */

/** The server's own message of a refusal (an ApiError's `message`), else the error as text. */
export function messageOf(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** An instant as `YYYY-MM-DD HH:MM:SSZ` (ISO strings or epoch seconds); `—` when absent. */
export function when(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const d = typeof iso === 'number' ? new Date(iso * 1000) : new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
