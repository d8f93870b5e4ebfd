/**
 * Classification of a node (REFERENCE §13.1): an ordered scale. Enforced only through the
 * ceiling of a Space grant, so an unspaced node's classification restricts nobody.
 */
export type Classification = 'public' | 'internal' | 'confidential' | 'restricted';
export const CLASSIFICATIONS: readonly Classification[] = ['public', 'internal', 'confidential', 'restricted'];
export const DEFAULT_CLASSIFICATION: Classification = 'internal';

export function isClassification(v: unknown): v is Classification {
  return typeof v === 'string' && (CLASSIFICATIONS as readonly string[]).includes(v);
}

/** Position on the scale: public 0 … restricted 3. */
export function classificationRank(c: Classification): number {
  return CLASSIFICATIONS.indexOf(c);
}

/** A stored node's level; records written before the field existed read as the default. */
export function classificationOf(n: { classification?: unknown }): Classification {
  return isClassification(n.classification) ? n.classification : DEFAULT_CLASSIFICATION;
}

/** Whether a ceiling admits a level: null admits every level. */
export function ceilingAdmits(ceiling: Classification | null, level: Classification): boolean {
  return ceiling === null || classificationRank(level) <= classificationRank(ceiling);
}
