/**
 * Where in its source chunk a node was extracted from (REFERENCE §9.5 `source_chunks`, §12.4
 * citations). Offsets are UTF-8 byte offsets into the chunk's content, end exclusive; pages
 * come from the Document's page map (`page_offsets[].char_start`, bytes into the document).
 */

/** A text selector as ingestion stores it, JSON-encoded, in `ExtractedFrom.location`. */
export interface TextSelector {
  exact: string;
  prefix: string | null;
  suffix: string | null;
  start: number;
  end: number;
}

export interface SourceAnchor {
  char_start: number | null;
  char_end: number | null;
  quote: string | null;
  /** the stored selector, when it anchors byte-exactly in the chunk */
  anchor: TextSelector | null;
}

export interface PageOffset {
  page: number;
  char_start: number;
}

const UNANCHORED: SourceAnchor = { char_start: null, char_end: null, quote: null, anchor: null };

/** `ExtractedFrom.location` read as a selector; null when absent or not a selector. */
export function parseSelector(location: unknown): TextSelector | null {
  if (typeof location !== 'string' || !location.trim().startsWith('{')) return null;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(location) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!o || typeof o !== 'object' || typeof o.exact !== 'string') return null;
  const start = o.start;
  const end = o.end;
  if (!Number.isInteger(start) || !Number.isInteger(end)) return null;
  return {
    exact: o.exact,
    prefix: typeof o.prefix === 'string' ? o.prefix : null,
    suffix: typeof o.suffix === 'string' ? o.suffix : null,
    start: start as number,
    end: end as number,
  };
}

/**
 * The anchor of an extracted node in its chunk: the stored selector when `content[start:end]`
 * (bytes) equals its `exact`; otherwise the first byte-exact occurrence of the node's label
 * (quote and offsets, no selector); otherwise unanchored.
 */
export function anchorInChunk(content: string | null, location: unknown, label: string): SourceAnchor {
  if (content === null) return UNANCHORED;
  const bytes = Buffer.from(content, 'utf8');
  const sel = parseSelector(location);
  if (sel && sel.start >= 0 && sel.end >= sel.start && sel.end <= bytes.length && bytes.subarray(sel.start, sel.end).toString('utf8') === sel.exact) {
    return { char_start: sel.start, char_end: sel.end, quote: sel.exact, anchor: sel };
  }
  const needle = Buffer.from(label, 'utf8');
  const at = needle.length ? bytes.indexOf(needle) : -1;
  if (at >= 0) return { char_start: at, char_end: at + needle.length, quote: label, anchor: null };
  return UNANCHORED;
}

/** A Document's page map (`page_offsets`, an array or its JSON text), well-formed entries only, by offset. */
export function readPageMap(pageOffsets: unknown): PageOffset[] {
  // props hold it JSON-encoded, as ExtractedFrom.location holds its selector
  if (typeof pageOffsets === 'string') {
    try {
      pageOffsets = JSON.parse(pageOffsets);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(pageOffsets)) return [];
  return pageOffsets
    .filter((p): p is PageOffset => !!p && typeof p === 'object' && Number.isInteger((p as PageOffset).page) && (p as PageOffset).page >= 1 && typeof (p as PageOffset).char_start === 'number')
    .sort((a, b) => a.char_start - b.char_start || a.page - b.page);
}

/** The 1-based page holding a document byte offset; null without a page map. */
export function pageAt(map: readonly PageOffset[], offset: number): number | null {
  if (!map.length) return null;
  let page = map[0].page;
  for (const p of map) {
    if (p.char_start > offset) break;
    page = p.page;
  }
  return page;
}

/**
 * Pages of an anchored span: chunk-relative bytes [start, end) shifted by the chunk's
 * `char_offset_start` into the document. Null when there is no page map, no anchor or no
 * chunk offset.
 */
export function pagesOfSpan(
  map: readonly PageOffset[],
  chunkOffset: number | null,
  start: number | null,
  end: number | null,
): { page_start: number | null; page_end: number | null } {
  if (!map.length || chunkOffset === null || start === null || end === null) return { page_start: null, page_end: null };
  const a = chunkOffset + start;
  const b = chunkOffset + Math.max(start, end - 1);
  return { page_start: pageAt(map, a), page_end: pageAt(map, b) };
}
