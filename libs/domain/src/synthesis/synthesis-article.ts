import { ClaimCluster, ClaimGroup } from './claim-clusters';
import { ProjectCorpus } from './project-corpus';
import { DIALECTICAL_EDGE_TYPES } from './signals';

/** Articles one synthesis run writes at most: the best clusters, one per subject. */
export const MAX_SYNTHESIS_ARTICLES = 3;
/** Claims an Article lists (the cluster may hold more; all are its `source_node_uids`). */
export const ARTICLE_CLAIMS = 20;

/** What an Article about one cluster is written from (by the model, or structurally). */
export interface ArticleMaterial {
  project: { uid: string; label: string };
  subject: { uid: string; label: string; node_type: string };
  cluster: ClaimCluster;
  /** most-sourced first */
  claims: { uid: string; label: string; sources: string[] }[];
  /** live dialectical edges touching the cluster's Claims */
  tensions: { edge_type: string; from_label: string; to_label: string }[];
  claim_uids: string[];
}

export interface ArticleText {
  label: string;
  content: string;
  questions: string[];
}

/** The subject an Article covers: the cluster's dominant entity, else its best-sourced Claim. */
export function subjectOf(c: ProjectCorpus, g: ClaimGroup): { uid: string; label: string; node_type: string } {
  const uid = g.cluster.dominant_entity_uid ?? g.cluster.sample_claims[0]?.uid ?? g.claim_uids[0];
  const n = c.nodes.get(uid)!;
  return { uid, label: n.label, node_type: n.node_type };
}

/** The best clusters (in score order) whose subjects differ, at most `max`. */
export function pickGroups(c: ProjectCorpus, groups: ClaimGroup[], max = MAX_SYNTHESIS_ARTICLES): ClaimGroup[] {
  const seen = new Set<string>();
  const out: ClaimGroup[] = [];
  for (const g of groups) {
    if (out.length >= max) break;
    const s = subjectOf(c, g).uid;
    if (seen.has(s)) continue;
    seen.add(s);
    out.push(g);
  }
  return out;
}

export function articleMaterial(c: ProjectCorpus, g: ClaimGroup, project: { uid: string; label: string }): ArticleMaterial {
  const docLabel = new Map(c.documents.map((d) => [d.uid, d.label]));
  const members = new Set(g.claim_uids);
  const claims = g.claim_uids
    .map((uid) => ({ uid, label: c.nodes.get(uid)!.label, sources: [...(c.docsOf.get(uid) ?? [])].map((d) => docLabel.get(d)!).filter((l) => l !== undefined).sort() }))
    .sort((a, b) => b.sources.length - a.sources.length || (a.label < b.label ? -1 : a.label > b.label ? 1 : a.uid < b.uid ? -1 : 1));
  const tensions = c.edges
    .filter((e) => DIALECTICAL_EDGE_TYPES.includes(e.edge_type) && (members.has(e.from_uid) || members.has(e.to_uid)))
    .map((e) => ({ edge_type: e.edge_type, from_label: c.nodes.get(e.from_uid)!.label, to_label: c.nodes.get(e.to_uid)!.label }))
    .sort((a, b) => (a.from_label + a.to_label < b.from_label + b.to_label ? -1 : 1));
  return { project, subject: subjectOf(c, g), cluster: g.cluster, claims, tensions, claim_uids: [...g.claim_uids] };
}

const VERB: Record<string, string> = { Contradicts: 'contradicts', Refutes: 'refutes', Rebuts: 'rebuts' };

/**
 * The Article the `offline` provider writes (REFERENCE §9.6): deterministic Markdown from the
 * structure alone — the subject, its claims with their sources, the tensions among them.
 */
export function structuralArticle(m: ArticleMaterial): ArticleText {
  const k = m.cluster;
  const lines: string[] = [
    `# ${m.subject.label}`,
    '',
    `${k.size} claim${k.size === 1 ? '' : 's'} from ${k.distinct_doc_count} of the ${k.project_doc_count} documents of ${m.project.label} concern ${m.subject.label} (${m.subject.node_type}).`,
    '',
    '## Claims',
    '',
  ];
  for (const c of m.claims.slice(0, ARTICLE_CLAIMS)) lines.push(`- ${c.label}${c.sources.length ? ` (${c.sources.join('; ')})` : ''}`);
  if (m.claims.length > ARTICLE_CLAIMS) lines.push(`- and ${m.claims.length - ARTICLE_CLAIMS} more`);
  lines.push('', '## Tensions', '');
  if (m.tensions.length) for (const t of m.tensions) lines.push(`- "${t.from_label}" ${VERB[t.edge_type] ?? t.edge_type} "${t.to_label}"`);
  else lines.push('- None recorded among these claims.');
  const e = k.epistemic_counts;
  lines.push('', '## Support', '', `Evidence ${e.evidence}, arguments ${e.arguments}, warrants ${e.warrants}, theories and hypotheses ${e.theories_hypotheses}, contradictions ${e.contradicts_edges}.`);
  const questions = m.tensions.length
    ? m.tensions.slice(0, 3).map((t) => `Which holds: "${t.from_label}" or "${t.to_label}"?`)
    : [`What else is known about ${m.subject.label}?`];
  return { label: `Synthesis: ${m.subject.label}`, content: lines.join('\n'), questions };
}

/** The JSON Schema of a model-written Article. */
export const ARTICLE_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', description: 'a short title naming the subject' },
    content: { type: 'string', description: 'the article in Markdown; cite claims by their text' },
    questions: { type: 'array', items: { type: 'string' }, description: 'open questions the claims leave, at most 5' },
  },
  required: ['title', 'content', 'questions'],
  additionalProperties: false,
} as const;

/** A model's answer as ArticleText, or the reason it is not one. */
export function readModelArticle(json: unknown): { article: ArticleText } | { error: string } {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { error: 'the answer is not a JSON object' };
  const o = json as Record<string, unknown>;
  if (typeof o.title !== 'string' || !o.title.trim()) return { error: 'title must be a non-empty string' };
  if (typeof o.content !== 'string' || !o.content.trim()) return { error: 'content must be a non-empty string' };
  if (!Array.isArray(o.questions) || o.questions.some((q) => typeof q !== 'string')) return { error: 'questions must be an array of strings' };
  const title = o.title.trim();
  return {
    article: {
      label: title.length > 1000 ? title.slice(0, 1000) : title,
      content: o.content.trim(),
      questions: (o.questions as string[]).map((q) => q.trim()).filter(Boolean).slice(0, 5),
    },
  };
}

/** The prompt's material: what the model may use, and nothing else (no secrets, no ids it need not see). */
export function articlePrompt(m: ArticleMaterial): { system: string; user: string } {
  return {
    system:
      'You write short, neutral synthesis articles for a knowledge graph. Use only the claims given. ' +
      'Say where sources agree and where they are in tension. Answer with JSON matching the schema.',
    user: JSON.stringify({
      project: m.project.label,
      subject: { label: m.subject.label, type: m.subject.node_type },
      claims: m.claims.slice(0, ARTICLE_CLAIMS).map((c) => ({ text: c.label, sources: c.sources })),
      tensions: m.tensions.map((t) => ({ relation: t.edge_type, from: t.from_label, to: t.to_label })),
      evidence_counts: m.cluster.epistemic_counts,
    }),
  };
}
