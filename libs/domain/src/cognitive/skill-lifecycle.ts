import { Errors } from '../errors';

export type SkillStatus = 'candidate' | 'reviewed' | 'approved' | 'rejected' | 'deprecated';
export type SkillMove = 'review' | 'approve' | 'reject' | 'deprecate';

/** REFERENCE §4.11: the only legal moves; rejected and deprecated are terminal. */
export const SKILL_TRANSITIONS: Readonly<Record<SkillStatus, Partial<Record<SkillMove, SkillStatus>>>> = {
  candidate: { review: 'reviewed', reject: 'rejected' },
  reviewed: { approve: 'approved', reject: 'rejected' },
  approved: { deprecate: 'deprecated' },
  rejected: {},
  deprecated: {},
};

/** The status a move leads to, or 409 invalid_transition with from_status and the allowed moves. */
export function nextSkillStatus(from: string, move: SkillMove): SkillStatus {
  const row = SKILL_TRANSITIONS[from as SkillStatus] ?? {};
  const to = row[move];
  if (!to) {
    const allowed = Object.keys(row);
    throw Errors.invalidTransition(
      `cannot ${move} a ${from} skill${allowed.length ? `; allowed: ${allowed.join(', ')}` : ' (terminal state)'}`,
      from,
      allowed,
    );
  }
  return to;
}
