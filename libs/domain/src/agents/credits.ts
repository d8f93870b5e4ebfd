/**
 * Agent credits (REFERENCE §16.8): per model call max(1, ⌈tokens / 1000⌉); the day runs from
 * 00:00 UTC, the month is the calendar month in UTC.
 */
export function creditsOf(inputTokens: number, outputTokens: number): number {
  return Math.max(1, Math.ceil((inputTokens + outputTokens) / 1000));
}

/** `YYYY-MM-DD` (UTC) of a Unix time. */
export function utcDay(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 10);
}

/** `YYYY-MM` (UTC) of a Unix time. */
export function utcMonth(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 7);
}

/** The next 00:00 UTC after `t`. */
export function nextUtcMidnight(t: number): number {
  return (Math.floor(t / 86400) + 1) * 86400;
}

export interface BudgetState {
  daily_credit_budget: number;
  used_today: number;
  /** the plan's agent credits per month (null: unlimited) and what the organization used of them */
  month_limit: number | null;
  month_used: number;
}

export interface Exhaustion {
  scope: 'agent' | 'organization';
  budget: number;
  used: number;
  resets_at: number;
}

/** Exhausted: the agent's day used up, or the organization's month; null when credits are left. */
export function budgetExhaustion(b: BudgetState, now: number): Exhaustion | null {
  if (b.used_today >= b.daily_credit_budget) return { scope: 'agent', budget: b.daily_credit_budget, used: b.used_today, resets_at: nextUtcMidnight(now) };
  if (b.month_limit !== null && b.month_used >= b.month_limit) {
    const d = new Date(now * 1000);
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
    return { scope: 'organization', budget: b.month_limit, used: b.month_used, resets_at: nextMonth };
  }
  return null;
}
