import { truncateSummary } from '../props/derive-summary';
import { BRIEF_ITEM_KINDS, BriefItemKind, Citation } from './brief-records';
import { briefItemId } from './brief-item-id';
import { ProjectSources, anchorQuoteBytes, citationOf, compareCitations } from './project-sources';
import { GENERATED_CAP, GeneratedItem, MAX_ITEM_CITATIONS } from './structural-generator';

/** Candidates per kind handed to the model (§12.4). */
export const MODEL_CANDIDATES_PER_KIND = 100;
export const SUMMARY_MAX = 2000;

/** What the model is asked for: at most 20 items per kind, each citing quotes of admitted chunks. */
export const BRIEF_OUTPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['summary', 'items'],
  properties: {
    summary: { type: 'string' },
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'text', 'basis_uids', 'citations', 'confidence'],
        properties: {
          kind: { type: 'string', enum: [...BRIEF_ITEM_KINDS] },
          text: { type: 'string' },
          basis_uids: { type: 'array', items: { type: 'string' } },
          citations: {
            type: 'array',
            items: { type: 'object', additionalProperties: false, required: ['chunk_uid', 'quote'], properties: { chunk_uid: { type: 'string' }, quote: { type: 'string' } } },
          },
          confidence: { type: ['number', 'null'] },
        },
      },
    },
  },
} as const;

export interface ModelBriefItem {
  kind: BriefItemKind;
  text: string;
  basis_uids: string[];
  citations: { chunk_uid: string; quote: string }[];
  confidence: number | null;
}

export interface ModelBrief {
  summary: string;
  items: ModelBriefItem[];
}

/** The material the model reads: P's structural candidates with their uids and chunk quotes. */
export function modelMaterial(structural: readonly GeneratedItem[]): string {
  const lines: string[] = [];
  for (const kind of BRIEF_ITEM_KINDS) {
    const of = structural.filter((g) => g.kind === kind).slice(0, MODEL_CANDIDATES_PER_KIND);
    lines.push(`## ${kind} candidates (${of.length})`);
    for (const g of of) {
      lines.push(`- basis_uids ${JSON.stringify(g.basis_uids)}: ${g.generated_text}`);
      for (const c of g.citations) if (c.quote !== null) lines.push(`  - chunk_uid ${c.chunk_uid} quote ${JSON.stringify(c.quote)}`);
    }
  }
  return lines.join('\n');
}

export const BRIEF_SYSTEM_PROMPT =
  'You write a Project brief: findings, tensions and open questions, each grounded in the sources given. ' +
  'Use only the basis_uids listed, cite each item with chunk_uid and a quote copied byte for byte from the quotes given, ' +
  'at most 20 items per kind, and a summary of at most 2000 characters.';

/**
 * Keeps only the model's items that stand (§12.4): every basis uid in Nodes(P), and at least one
 * citation anchoring byte for byte in a member of Chunks(P) (only anchored citations are kept).
 * Subjects are the basis. At most 20 per kind; the summary is cut to 2,000 characters.
 */
export function acceptModelBrief(s: ProjectSources, out: ModelBrief): { summary: string; items: GeneratedItem[]; dropped: number } {
  const items: GeneratedItem[] = [];
  const perKind = new Map<BriefItemKind, number>();
  const seen = new Set<string>();
  let dropped = 0;
  for (const it of out.items) {
    const basis = [...new Set(it.basis_uids)].sort();
    const citations: Citation[] = [];
    for (const c of it.citations) {
      const chunk = s.chunks.get(c.chunk_uid);
      if (!chunk || !c.quote) continue;
      const a = anchorQuoteBytes(chunk.content, c.quote);
      if (typeof a !== 'string') citations.push(citationOf(s, chunk, null, a.start, a.end, c.quote));
    }
    const id = basis.length ? briefItemId(it.kind, basis) : '';
    if (!basis.length || !basis.every((u) => s.nodes.has(u)) || !citations.length || seen.has(id) || (perKind.get(it.kind) ?? 0) >= GENERATED_CAP) {
      dropped++;
      continue;
    }
    seen.add(id);
    perKind.set(it.kind, (perKind.get(it.kind) ?? 0) + 1);
    items.push({
      id,
      kind: it.kind,
      generated_text: it.text,
      subject_uids: basis,
      basis_uids: basis,
      citations: citations.sort(compareCitations).slice(0, MAX_ITEM_CITATIONS),
      confidence: typeof it.confidence === 'number' && Number.isFinite(it.confidence) ? it.confidence : null,
      origin: 'llm',
    });
  }
  return { summary: truncateSummary(out.summary, SUMMARY_MAX), items, dropped };
}
