/** The stateless revision: no `initialize`, `server/discover` instead (REFERENCE §15.5, §15.11). */
export const STATELESS_REVISION = '2026-07-28';
/** Revisions offered through `initialize`, newest first; anything else is answered with the first. */
export const INITIALIZE_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
/** Every revision Strata speaks, as `server/discover` lists them. */
export const ALL_REVISIONS = [STATELESS_REVISION, ...INITIALIZE_REVISIONS] as const;
