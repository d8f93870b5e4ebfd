import { normaliseText, trigramSimilarity, typeKey } from '../catalogue/names';
import { NODE_TYPES } from '../catalogue/node-types';
import { EDGE_TYPES } from '../catalogue/edge-types';
import { ObjectTypeRecord, RelationTypeRecord } from './ontology-records';

export interface SemanticCandidate {
  status: 'candidate';
  builtin_type: string;
  kind: 'node_type' | 'edge_type';
  score: number;
  name_similarity: number;
  field_overlap: number;
  method: 'name_and_fields';
}

const words = (name: string) => normaliseText(name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]/g, ' '));

function jaccard(a: readonly string[], b: readonly string[]): number {
  if (!a.length || !b.length) return 0;
  const A = new Set(a.map(typeKey));
  const B = new Set(b.map(typeKey));
  let both = 0;
  for (const x of A) if (B.has(x)) both++;
  return both / (A.size + B.size - both);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The built-in type a workspace type most resembles (REFERENCE §11 semantic guidance): name
 * similarity (trigrams of the type's name and display name against the built-in's name)
 * weighted 0.7, overlap of field names with the built-in's props weighted 0.3. Deterministic;
 * a candidate only — nothing is applied until a reviewer sets `semantic_match`.
 */
export function objectTypeCandidate(t: Pick<ObjectTypeRecord, 'name' | 'display_name' | 'fields_json'>): SemanticCandidate {
  const names = [words(t.name), ...(t.display_name ? [words(t.display_name)] : [])];
  const fields = t.fields_json.map((f) => f.name);
  let best: SemanticCandidate | null = null;
  for (const def of NODE_TYPES) {
    const name = Math.max(...names.map((n) => trigramSimilarity(n, words(def.name))));
    const overlap = jaccard(fields, def.fields.map((f) => f.name));
    const score = round(0.7 * name + 0.3 * overlap);
    if (!best || score > best.score || (score === best.score && def.name < best.builtin_type))
      best = { status: 'candidate', builtin_type: def.name, kind: 'node_type', score, name_similarity: round(name), field_overlap: round(overlap), method: 'name_and_fields' };
  }
  return best!;
}

export function relationTypeCandidate(t: Pick<RelationTypeRecord, 'name' | 'display_name'>): SemanticCandidate {
  const names = [words(t.name), ...(t.display_name ? [words(t.display_name)] : [])];
  let best: SemanticCandidate | null = null;
  for (const def of EDGE_TYPES) {
    const name = round(Math.max(...names.map((n) => trigramSimilarity(n, words(def.name)))));
    if (!best || name > best.score || (name === best.score && def.name < best.builtin_type))
      best = { status: 'candidate', builtin_type: def.name, kind: 'edge_type', score: name, name_similarity: name, field_overlap: 0, method: 'name_and_fields' };
  }
  return best!;
}
