export type HealthLevel = 'attention' | 'critical';
export type HealthState = 'healthy' | HealthLevel;

export interface HealthReason {
  metric: 'evidence_completeness' | 'high_severity_exceptions' | 'exceptions' | 'chunk_failure_rate';
  value: number;
  threshold: number;
  level: HealthLevel;
}

export interface HealthInputs {
  evidence_completeness: number | null;
  claims: number;
  /** open + acknowledged, severity high */
  high_severity_exceptions: number;
  /** open + acknowledged */
  exceptions: number;
  chunks_completed: number;
  chunks_failed: number;
}

const round4 = (x: number) => Math.round(x * 10000) / 10000;

/**
 * State and reasons (REFERENCE §14.1): each metric that reaches `attention` is a reason, at the
 * worst level it reaches (its threshold is that level's); the state is the worst level of all.
 */
export function healthState(i: HealthInputs): { state: HealthState; reasons: HealthReason[] } {
  const reasons: HealthReason[] = [];
  const below = (metric: HealthReason['metric'], v: number, attention: number, critical: number) => {
    if (v < critical) reasons.push({ metric, value: v, threshold: critical, level: 'critical' });
    else if (v < attention) reasons.push({ metric, value: v, threshold: attention, level: 'attention' });
  };
  const atLeast = (metric: HealthReason['metric'], v: number, attention: number, critical: number) => {
    if (v >= critical) reasons.push({ metric, value: v, threshold: critical, level: 'critical' });
    else if (v >= attention) reasons.push({ metric, value: v, threshold: attention, level: 'attention' });
  };
  const above = (metric: HealthReason['metric'], v: number, attention: number, critical: number) => {
    if (v > critical) reasons.push({ metric, value: v, threshold: critical, level: 'critical' });
    else if (v > attention) reasons.push({ metric, value: v, threshold: attention, level: 'attention' });
  };
  if (i.claims >= 10 && i.evidence_completeness !== null) below('evidence_completeness', i.evidence_completeness, 0.8, 0.5);
  atLeast('high_severity_exceptions', i.high_severity_exceptions, 1, 10);
  atLeast('exceptions', i.exceptions, 25, 100);
  const finished = i.chunks_completed + i.chunks_failed;
  if (finished >= 10) above('chunk_failure_rate', round4(i.chunks_failed / finished), 0.05, 0.2);
  const state: HealthState = reasons.some((r) => r.level === 'critical') ? 'critical' : reasons.length ? 'attention' : 'healthy';
  return { state, reasons };
}
