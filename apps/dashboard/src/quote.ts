/**
 * Where extracted nodes were found in a chunk: the ExtractedFrom edge's `location` is the
 * JSON text of a selector `{exact, prefix, suffix, start, end}` whose offsets are UTF-8 byte
 * offsets into the chunk (REFERENCE §9.2). This turns selectors into non-overlapping
 * segments of the chunk's text, each marked or not, for highlighting.
 */
export interface Selector {
  exact: string;
  start?: number;
  end?: number;
}

export interface Segment {
  text: string;
  /** the labels of the nodes quoted here; empty for plain text */
  marks: string[];
}

export function parseSelector(location: unknown): Selector | null {
  let v = location;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!v || typeof v !== 'object' || typeof (v as Selector).exact !== 'string' || (v as Selector).exact === '') return null;
  return v as Selector;
}

/** Character index of a UTF-8 byte offset into `text` (null when it splits a character or lies outside). */
export function charIndexOfByte(text: string, byte: number): number | null {
  let bytes = 0;
  let i = 0;
  for (const ch of text) {
    if (bytes === byte) return i;
    if (bytes > byte) return null;
    const cp = ch.codePointAt(0)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += ch.length;
  }
  return bytes === byte ? i : null;
}

/** The range of a selector in the chunk: its byte offsets when they hold `exact`, else the first occurrence of `exact`. */
export function locate(text: string, s: Selector): [number, number] | null {
  if (typeof s.start === 'number') {
    const from = charIndexOfByte(text, s.start);
    if (from !== null && text.startsWith(s.exact, from)) return [from, from + s.exact.length];
  }
  const at = text.indexOf(s.exact);
  return at < 0 ? null : [at, at + s.exact.length];
}

export function segments(text: string, quotes: { label: string; selector: Selector }[]): Segment[] {
  const cuts = new Set<number>([0, text.length]);
  const ranges: { from: number; to: number; label: string }[] = [];
  for (const q of quotes) {
    const r = locate(text, q.selector);
    if (!r) continue;
    ranges.push({ from: r[0], to: r[1], label: q.label });
    cuts.add(r[0]).add(r[1]);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i < points.length - 1; i++) {
    const [from, to] = [points[i], points[i + 1]];
    if (from === to) continue;
    const marks = ranges.filter((r) => r.from <= from && r.to >= to).map((r) => r.label);
    const last = out[out.length - 1];
    if (last && last.marks.join('\0') === marks.join('\0')) last.text += text.slice(from, to);
    else out.push({ text: text.slice(from, to), marks });
  }
  return out;
}
