import { Api } from '../support/http';
import { IngestedDocument, createProject, ingestDocument } from '../support/ingested-corpus';
import { link, mk } from '../retrieval/retrieval-fixture';

/** The uids of a Project corpus with every kind of signal (see seedSynthesisWorld). */
export interface SynthesisWorld {
  project: string;
  otherProject: string;
  docs: IngestedDocument[];
  /** a Document admitted and then tombstoned: not among Docs(P) */
  goneDoc: IngestedDocument;
  outsideDoc: IngestedDocument;
  n: Record<string, string>;
}

/**
 * Three admitted Documents about Ada Lovelace's engine notes: Ada (Person) is extracted from
 * two of them and is the subject of three Claims; one Claim contradicts another; a Theory
 * with one Support, a Hypothesis with two; a Concept in all three documents, an Analogy.
 * Outside the Project: a Document in another Project whose Claims also name Ada, and an
 * admitted Document that was tombstoned.
 */
export async function seedSynthesisWorld(w: Api): Promise<SynthesisWorld> {
  const project = await createProject(w, 'Analytical Engine');
  const otherProject = await createProject(w, 'Looms');
  const d1 = await ingestDocument(w, {
    title: 'Notes by the translator',
    project_uid: project,
    chunks: ['Ada Lovelace wrote the first program for the engine. The analytical engine could weave algebraic patterns.'],
    extracted: [
      { ref: 'ada', node_type: 'Person', label: 'Ada Lovelace', chunk: 0 },
      { ref: 'c1', node_type: 'Claim', label: 'Ada Lovelace wrote the first program for the engine', chunk: 0 },
      { ref: 'engine1', node_type: 'Concept', label: 'analytical engine', chunk: 0 },
      { ref: 'analogy', node_type: 'Analogy', label: 'The engine weaves algebraic patterns like a loom', quote: 'weave algebraic patterns', chunk: 0 },
    ],
  });
  const d2 = await ingestDocument(w, {
    title: 'Letters to Babbage',
    project_uid: project,
    chunks: ['Ada Lovelace described Bernoulli numbers in her letters. The analytical engine was never finished.'],
    extracted: [
      { ref: 'ada', node_type: 'Person', label: 'Ada Lovelace', chunk: 0, uid: d1.nodes.ada },
      { ref: 'c2', node_type: 'Claim', label: 'Ada Lovelace described Bernoulli numbers', chunk: 0 },
      { ref: 'engine2', node_type: 'Concept', label: 'analytical engine', chunk: 0, uid: d1.nodes.engine1 },
      { ref: 'th', node_type: 'Theory', label: 'Lovelace was the first programmer', quote: 'Ada Lovelace', chunk: 0 },
    ],
  });
  const d3 = await ingestDocument(w, {
    title: 'A skeptical biography',
    project_uid: project,
    chunks: ['Babbage wrote the earlier programs, not Lovelace. The analytical engine was a mechanical computer.'],
    extracted: [
      { ref: 'c3', node_type: 'Claim', label: 'Babbage wrote the earlier programs, not Lovelace', chunk: 0 },
      { ref: 'engine3', node_type: 'Concept', label: 'analytical engine', chunk: 0, uid: d1.nodes.engine1 },
      { ref: 'hy', node_type: 'Hypothesis', label: 'Babbage wrote the earlier programs', chunk: 0 },
      { ref: 'ev', node_type: 'Evidence', label: 'Babbage wrote the earlier programs', chunk: 0 },
    ],
  });
  const outsideDoc = await ingestDocument(w, {
    title: 'Loom history',
    project_uid: otherProject,
    chunks: ['Ada Lovelace admired the Jacquard loom.'],
    extracted: [{ ref: 'cx', node_type: 'Claim', label: 'Ada Lovelace admired the Jacquard loom', chunk: 0 }],
  });
  const goneDoc = await ingestDocument(w, {
    title: 'Withdrawn draft',
    project_uid: project,
    chunks: ['Ada Lovelace invented the engine.'],
    extracted: [{ ref: 'cg', node_type: 'Claim', label: 'Ada Lovelace invented the engine', chunk: 0 }],
  });
  const n: Record<string, string> = { ...d1.nodes, ...d2.nodes, ...d3.nodes, cx: outsideDoc.nodes.cx, cg: goneDoc.nodes.cg };
  n.about1 = await link(w, n.c1, n.ada, 'About');
  n.about2 = await link(w, n.c2, n.ada, 'About');
  n.about3 = await link(w, n.c3, n.ada, 'About');
  // outside the Project: neither counted nor shown
  await link(w, n.cx, n.ada, 'About');
  await link(w, n.cg, n.ada, 'About');
  n.contra = await link(w, n.c3, n.c1, 'Contradicts');
  await link(w, n.c1, n.th, 'Supports');
  await link(w, n.c3, n.hy, 'Supports');
  await link(w, n.ev, n.hy, 'Supports');
  await link(w, n.ev, n.c3, 'Supports');
  // a hand-made node linked to project claims is not among the Project's sources
  n.manual = await mk(w, 'Person', 'Charles Babbage');
  await link(w, n.c3, n.manual, 'About');
  await link(w, n.c1, n.manual, 'About');
  const del = await w.delete(`/node/${goneDoc.document_uid}`);
  if (del.status !== 200) throw new Error(`DELETE document: ${del.status} ${del.text}`);
  return { project, otherProject, docs: [d1, d2, d3], goneDoc, outsideDoc, n };
}
