/**
 * What changed between two versions of a record: one line per field, nested objects (props)
 * flattened to dotted paths. Bookkeeping fields every change touches are left out.
 */
export interface FieldChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

const BOOKKEEPING = new Set(['version', 'updated_at']);

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.set(prefix, value);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function diffRecords(before: Record<string, unknown> | null, after: Record<string, unknown>): FieldChange[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  if (before) flatten(before, '', a);
  flatten(after, '', b);
  const out: FieldChange[] = [];
  for (const [path, v] of b) {
    if (BOOKKEEPING.has(path)) continue;
    if (!a.has(path)) {
      if (before && v !== null && v !== undefined) out.push({ path, kind: 'added', after: v });
    } else if (!same(a.get(path), v)) out.push({ path, kind: 'changed', before: a.get(path), after: v });
  }
  for (const [path, v] of a) if (!b.has(path) && !BOOKKEEPING.has(path)) out.push({ path, kind: 'removed', before: v });
  return out.sort((x, y) => x.path.localeCompare(y.path));
}
