/** The close codes of the live WebSocket (REFERENCE §16.12), plus the standard ones it uses. */
export const WsCloseCode = {
  /** shutdown */
  goingAway: 1001,
  /** the client fell too far behind the log */
  policyViolation: 1008,
  malformed: 4400,
  unauthorized: 4401,
  forbidden: 4403,
  authTimeout: 4408,
  tooManySockets: 4429,
} as const;
