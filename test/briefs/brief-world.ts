import { Api } from '../support/http';
import { link, mk } from '../retrieval/retrieval-fixture';

export const ALPHA = 'The heat shield ablates at reentry. Tiles crack under thermal load. Why do tiles crack at low altitude?';
export const BETA = 'Tests confirm the heat shield ablates at reentry. Engineers argue tiles never crack. Café crème résumé.';

/** A selector as ingestion stores it on ExtractedFrom.location (UTF-8 byte offsets). */
export function selector(content: string, exact: string): string {
  const i = Buffer.from(content, 'utf8').indexOf(Buffer.from(exact, 'utf8'));
  if (i < 0) throw new Error(`${exact} not in chunk`);
  return JSON.stringify({ exact, prefix: '', suffix: '', start: i, end: i + Buffer.byteLength(exact, 'utf8') });
}

export interface BriefWorld {
  project: string;
  other: string;
  docA: string;
  docB: string;
  chunkA: string;
  chunkB: string;
  outsideChunk: string;
  ablates: string;
  cracks: string;
  never: string;
  question: string;
  hypothesis: string;
  support: string;
}

/**
 * A Project admitting two documents: a Claim extracted from both (a finding), a Claim supported by
 * another (a finding), two Claims that contradict each other (a tension), an open Question and a
 * proposed Hypothesis (open questions). Another Project admits a third document.
 */
export async function seedBriefWorld(w: Api): Promise<BriefWorld> {
  const project = await mk(w, 'Project', 'Orion');
  const other = await mk(w, 'Project', 'Vega');
  const docA = await mk(w, 'Document', 'Alpha report', { props: { title: 'Alpha report', document_type: 'article' } });
  const docB = await mk(w, 'Document', 'Beta memo', { props: { title: 'Beta memo', document_type: 'note' } });
  const docC = await mk(w, 'Document', 'Gamma notes', { props: { title: 'Gamma notes', document_type: 'note' } });
  const chunkA = await mk(w, 'Chunk', 'Alpha · 0', { props: { content: ALPHA, chunk_index: 0, chunk_type: 'text' } });
  const chunkB = await mk(w, 'Chunk', 'Beta · 0', { props: { content: BETA, chunk_index: 0, chunk_type: 'text' } });
  const outsideChunk = await mk(w, 'Chunk', 'Gamma · 0', { props: { content: 'Gamma says nothing about tiles.', chunk_index: 0, chunk_type: 'text' } });
  await link(w, chunkA, docA, 'ChunkOf');
  await link(w, chunkB, docB, 'ChunkOf');
  await link(w, outsideChunk, docC, 'ChunkOf');
  await link(w, docA, project, 'PartOfProject');
  await link(w, docB, project, 'PartOfProject');
  await link(w, docC, other, 'PartOfProject');

  const ablates = await mk(w, 'Claim', 'heat shield ablates at reentry', { confidence: 0.9, props: { content: 'The heat shield ablates at reentry' } });
  await link(w, ablates, chunkA, 'ExtractedFrom', { props: { location: selector(ALPHA, 'The heat shield ablates at reentry') } });
  await link(w, ablates, chunkB, 'ExtractedFrom', { props: { location: selector(BETA, 'the heat shield ablates at reentry') } });
  const cracks = await mk(w, 'Claim', 'Tiles crack under thermal load', { confidence: 0.7, props: { content: 'Tiles crack under thermal load' } });
  await link(w, cracks, chunkA, 'ExtractedFrom');
  const never = await mk(w, 'Claim', 'tiles never crack', { confidence: 0.6, props: { content: 'Engineers argue tiles never crack' } });
  await link(w, never, chunkB, 'ExtractedFrom');
  await link(w, never, cracks, 'Contradicts');
  const question = await mk(w, 'Question', 'Why do tiles crack at low altitude?', { props: { text: 'Why do tiles crack at low altitude?', importance: 0.8 } });
  await link(w, question, chunkA, 'ExtractedFrom');
  const hypothesis = await mk(w, 'Hypothesis', 'Café crème résumé', { props: { statement: 'Café crème résumé', status: 'proposed' } });
  await link(w, hypothesis, chunkB, 'ExtractedFrom');
  const support = await link(w, hypothesis, cracks, 'Supports');
  return { project, other, docA, docB, chunkA, chunkB, outsideChunk, ablates, cracks, never, question, hypothesis, support };
}
