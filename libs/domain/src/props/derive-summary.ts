/** Props fields searched for a summary, in order (REFERENCE §2.7). */
export const SUMMARY_SOURCE_FIELDS: readonly string[] = Object.freeze([
  'content',
  'description',
  'statement',
  'text',
  'definition',
  'expression',
  'name',
  'title',
  'principle',
  'canonical_name',
  'full_name',
  'question',
  'focus_summary',
  'action_name',
]);

export const SUMMARY_MAX_CHARS = 500;

/**
 * Derived summary: the first non-blank string among SUMMARY_SOURCE_FIELDS, else the label;
 * trimmed, and cut to 500 characters (code points) ending with `…` when longer.
 */
export function deriveSummary(props: Record<string, unknown> | null | undefined, label: string): string {
  let text: string | undefined;
  if (props) {
    for (const f of SUMMARY_SOURCE_FIELDS) {
      const v = props[f];
      if (typeof v === 'string') {
        const t = v.trim();
        if (t) {
          text = t;
          break;
        }
      }
    }
  }
  return truncateSummary(text ?? (typeof label === 'string' ? label.trim() : ''));
}

export function truncateSummary(text: string, max = SUMMARY_MAX_CHARS): string {
  if (text.length <= max) return text;
  const cps = Array.from(text);
  if (cps.length <= max) return text;
  return cps.slice(0, max - 1).join('') + '…';
}
