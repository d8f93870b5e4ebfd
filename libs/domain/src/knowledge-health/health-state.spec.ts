import { HealthInputs, healthState } from './health-state';

const calm: HealthInputs = { evidence_completeness: 1, claims: 100, high_severity_exceptions: 0, exceptions: 0, chunks_completed: 100, chunks_failed: 0 };

describe('healthState (REFERENCE §14.1)', () => {
  it('is healthy when no metric reaches attention', () => {
    expect(healthState(calm)).toEqual({ state: 'healthy', reasons: [] });
  });

  it.each([
    [{ evidence_completeness: 0.7999 }, 'evidence_completeness', 'attention', 0.8],
    [{ evidence_completeness: 0.4999 }, 'evidence_completeness', 'critical', 0.5],
    [{ high_severity_exceptions: 1, exceptions: 1 }, 'high_severity_exceptions', 'attention', 1],
    [{ high_severity_exceptions: 10, exceptions: 10 }, 'high_severity_exceptions', 'critical', 10],
    [{ exceptions: 25 }, 'exceptions', 'attention', 25],
    [{ exceptions: 100 }, 'exceptions', 'critical', 100],
    [{ chunks_completed: 94, chunks_failed: 6 }, 'chunk_failure_rate', 'attention', 0.05],
    [{ chunks_completed: 79, chunks_failed: 21 }, 'chunk_failure_rate', 'critical', 0.2],
  ])('%j → %s %s', (change, metric, level, threshold) => {
    const r = healthState({ ...calm, ...change });
    expect(r.state).toBe(level);
    expect(r.reasons).toEqual([expect.objectContaining({ metric, level, threshold })]);
  });

  it('stays healthy right at the boundaries that are strict', () => {
    expect(healthState({ ...calm, evidence_completeness: 0.8 }).state).toBe('healthy');
    expect(healthState({ ...calm, exceptions: 24 }).state).toBe('healthy');
    expect(healthState({ ...calm, chunks_completed: 95, chunks_failed: 5 }).state).toBe('healthy');
  });

  it('ignores evidence completeness under 10 claims and the failure rate under 10 finished chunks', () => {
    expect(healthState({ ...calm, claims: 9, evidence_completeness: 0 }).state).toBe('healthy');
    expect(healthState({ ...calm, chunks_completed: 0, chunks_failed: 9 }).state).toBe('healthy');
    expect(healthState({ ...calm, claims: 0, evidence_completeness: null }).state).toBe('healthy');
  });

  it('takes the worst level and lists every metric that reaches attention', () => {
    const r = healthState({ ...calm, evidence_completeness: 0.6, high_severity_exceptions: 12, exceptions: 30 });
    expect(r.state).toBe('critical');
    expect(r.reasons.map((x) => [x.metric, x.level, x.value])).toEqual([
      ['evidence_completeness', 'attention', 0.6],
      ['high_severity_exceptions', 'critical', 12],
      ['exceptions', 'attention', 30],
    ]);
  });
});
