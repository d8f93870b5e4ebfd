import { Api, api, createApiKey } from './http';
import { RetrievalFixture, link, mk } from '../retrieval/retrieval-fixture';

/** The uids of a Project-scope world (see seedProjectScope). */
export interface ProjectScopeWorld {
  project: string;
  doc: string;
  chunk: string;
  /** extracted from the project's document: admitted */
  inside: string;
  /** not admitted by the project */
  outside: string;
  /** inside → chunk (ExtractedFrom): both ends visible */
  extracted: string;
  /** inside → outside (Supports): crosses the scope boundary */
  crossing: string;
  /** a read+write key scoped to the project */
  scoped: Api;
}

/**
 * A Project admitting one Document, its Chunk and a Claim extracted from it (REFERENCE §5.1),
 * a Claim outside it linked from the inside one, and a key scoped to the Project.
 */
export async function seedProjectScope(f: RetrievalFixture, outsideLabel: string): Promise<ProjectScopeWorld> {
  const project = await mk(f.w, 'Project', 'Orion');
  const doc = await mk(f.w, 'Document', 'Orion spec', { props: { title: 'Orion spec', document_type: 'article' } });
  const chunk = await mk(f.w, 'Chunk', 'Orion spec · chunk 0', { props: { content: 'heat shield ablation', chunk_index: 0 } });
  const inside = await mk(f.w, 'Claim', 'Heat shield ablates at reentry');
  const outside = await mk(f.w, 'Claim', outsideLabel);
  await link(f.w, chunk, doc, 'ChunkOf');
  const extracted = await link(f.w, inside, chunk, 'ExtractedFrom');
  await link(f.w, doc, project, 'PartOfProject');
  const crossing = await link(f.w, inside, outside, 'Supports');
  const key = await createApiKey(f.app.url, f.jwt, { scopes: ['read', 'write'], project_uids: [project], name: 'scoped' });
  return { project, doc, chunk, inside, outside, extracted, crossing, scoped: api(f.app.url, key.key) };
}
