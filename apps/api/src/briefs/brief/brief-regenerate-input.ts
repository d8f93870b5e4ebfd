import { Errors } from '@strata/domain/errors';
import { assertObjectBody } from '@strata/domain/validation';

export type BriefMode = 'auto' | 'structural' | 'llm';
export const BRIEF_MODES: readonly BriefMode[] = ['auto', 'structural', 'llm'];

export interface RegenerateRequest {
  mode: BriefMode;
  force: boolean;
  reason: string | null;
}

/** The body of `POST …/brief/regenerate` (REFERENCE §12.6). */
export function readRegenerate(body: unknown): RegenerateRequest {
  const b = assertObjectBody(body);
  const mode = b.mode ?? 'auto';
  if (typeof mode !== 'string' || !(BRIEF_MODES as readonly string[]).includes(mode)) throw Errors.invalidField('mode', `mode must be one of: ${BRIEF_MODES.join(', ')}`, { allowed: [...BRIEF_MODES] });
  const force = b.force ?? false;
  if (typeof force !== 'boolean') throw Errors.invalidField('force', 'force must be a boolean');
  const reason = b.reason ?? null;
  if (reason !== null && (typeof reason !== 'string' || reason.length > 500)) throw Errors.invalidField('reason', 'reason must be a string of at most 500 characters');
  return { mode: mode as BriefMode, force, reason };
}
