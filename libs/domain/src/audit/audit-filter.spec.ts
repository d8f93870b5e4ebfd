import { RecordedEvent, recordedEvent } from '../events';
import { DomainError } from '../errors';
import { auditMatches, listOption, parseBound, pastEnd, readAfter } from './audit-filter';

function ev(position: number, over: Partial<RecordedEvent['metadata']> = {}, type = 'NodeCreated', stream = 'node-o1:n'): RecordedEvent {
  return recordedEvent({
    id: `e${position}`,
    stream,
    revision: 0,
    position,
    type,
    data: {},
    metadata: { org_id: 'o1', principal: { kind: 'user', id: 'u1' }, request_id: 'r', occurred_at: Date.parse('2025-03-01T00:00:00Z') / 1000, ...over },
  });
}

describe('parseBound', () => {
  it('reads a whole number as a log position', () => {
    expect(parseBound('1200', '--from')).toEqual({ position: 1200 });
  });

  it('reads dates and times as UTC unless they carry a zone', () => {
    expect(parseBound('2025-01-31', '--from')).toEqual({ time: Date.parse('2025-01-31T00:00:00Z') / 1000 });
    expect(parseBound('2025-01-31T12:30:00', '--to')).toEqual({ time: Date.parse('2025-01-31T12:30:00Z') / 1000 });
    expect(parseBound('2025-01-31T12:30:00+02:00', '--to')).toEqual({ time: Date.parse('2025-01-31T10:30:00Z') / 1000 });
  });

  it('reads a date-only --to as the whole day: up to the next midnight (UTC), not including it', () => {
    expect(parseBound('2025-01-31', '--to')).toEqual({ time: Date.parse('2025-02-01T00:00:00Z') / 1000, before: true });
    expect(parseBound('2024-12-31', '--to')).toEqual({ time: Date.parse('2025-01-01T00:00:00Z') / 1000, before: true });
    // with a clock time it is that instant, inclusive
    expect(parseBound('2025-01-31T00:00', '--to')).toEqual({ time: Date.parse('2025-01-31T00:00:00Z') / 1000 });
  });

  it('refuses impossible dates and times instead of rolling them over', () => {
    for (const bad of ['2026-02-30', '2026-11-31', '2025-02-29', '2026-11-22T24:00:00Z', '2026-11-22T12:60', '2026-13-01']) {
      expect(() => parseBound(bad, '--from')).toThrow(new DomainError(400, 'invalid_field', `--from must be a log position (e.g. 1200) or an ISO 8601 time (e.g. 2025-01-31T12:00:00Z), got '${bad}': there is no such date or time`));
    }
    expect(parseBound('2024-02-29', '--from')).toEqual({ time: Date.parse('2024-02-29T00:00:00Z') / 1000 });
  });

  it('refuses anything else with a message naming the flag', () => {
    expect(() => parseBound('yesterday', '--from')).toThrow(DomainError);
    expect(() => parseBound('yesterday', '--from')).toThrow(/--from must be a log position .* got 'yesterday'/);
    expect(() => parseBound('-5', '--to')).toThrow(/--to/);
  });
});

describe('auditMatches', () => {
  it('keeps only the organization asked for', () => {
    expect(auditMatches(ev(1), { org: 'o1' })).toBe(true);
    expect(auditMatches(ev(1, { org_id: 'o2' }), { org: 'o1' })).toBe(false);
  });

  it('applies inclusive position and time windows', () => {
    const q = { org: 'o1', from: { position: 5 }, to: { position: 7 } };
    expect([4, 5, 7, 8].map((p) => auditMatches(ev(p), q))).toEqual([false, true, true, false]);
    const t = Date.parse('2025-03-01T00:00:00Z') / 1000;
    expect(auditMatches(ev(1), { org: 'o1', from: { time: t }, to: { time: t } })).toBe(true);
    expect(auditMatches(ev(1), { org: 'o1', from: { time: t + 1 } })).toBe(false);
  });

  it('keeps every event of the day named by date-only bounds, and none of the next', () => {
    const q = { org: 'o1', from: parseBound('2026-11-22', '--from'), to: parseBound('2026-11-22', '--to') };
    const at = (iso: string) => ev(1, { occurred_at: Date.parse(iso) / 1000 });
    expect(auditMatches(at('2026-11-22T00:00:00.000Z'), q)).toBe(true);
    expect(auditMatches(at('2026-11-22T16:34:22.398Z'), q)).toBe(true);
    expect(auditMatches(at('2026-11-22T23:59:59.999Z'), q)).toBe(true);
    expect(auditMatches(at('2026-11-23T00:00:00.000Z'), q)).toBe(false);
    expect(auditMatches(at('2026-11-21T23:59:59.999Z'), q)).toBe(false);
  });

  it('matches a principal by kind:id, by id, by kind, or by the key it acted through', () => {
    const byKey = ev(1, { principal: { kind: 'api_key', id: 'k1' }, agent_id: 'a1', credential_id: 'k1' });
    for (const w of ['api_key:k1', 'K1', 'api_key']) expect(auditMatches(byKey, { org: 'o1', principals: [w] })).toBe(true);
    expect(auditMatches(byKey, { org: 'o1', principals: ['user:u1'] })).toBe(false);
  });

  it('never takes the agent_id a write is attributed to for its principal', () => {
    // a plain key or a user's JWT may state any agent_id in the body: attribution, not identity
    const claimed = [
      ev(1, { principal: { kind: 'api_key', id: 'k1' }, credential_id: 'k1', agent_id: 'agent-007' }),
      ev(2, { principal: { kind: 'user', id: 'u1' }, credential_id: null, agent_id: 'agent-007' }),
    ];
    for (const e of claimed) {
      for (const w of ['agent:agent-007', 'agent-007', 'agent']) expect(auditMatches(e, { org: 'o1', principals: [w] })).toBe(false);
      expect(auditMatches(e, { org: 'o1', agents: ['agent-007'] })).toBe(true);
      expect(auditMatches(e, { org: 'o1', agents: ['agent:AGENT-007'] })).toBe(true);
      expect(auditMatches(e, { org: 'o1', agents: ['agent-8'] })).toBe(false);
    }
    expect(auditMatches(ev(3), { org: 'o1', agents: ['agent-007'] })).toBe(false);
  });

  it('matches kinds by event type or stream category, case-insensitively', () => {
    const e = ev(1, {}, 'EdgeTombstoned', 'edge-o1:e');
    expect(auditMatches(e, { org: 'o1', kinds: ['edgetombstoned'] })).toBe(true);
    expect(auditMatches(e, { org: 'o1', kinds: ['node', 'edge'] })).toBe(true);
    expect(auditMatches(e, { org: 'o1', kinds: ['NodeCreated'] })).toBe(false);
  });
});

describe('where a replay starts and stops', () => {
  it('starts right before a --from position, from the beginning for a time', () => {
    expect(readAfter({ from: { position: 10 } })).toBe(9);
    expect(readAfter({ from: { time: 1 } })).toBe(0);
    expect(readAfter({})).toBe(0);
  });

  it('stops reading past a --to position but not for a time bound', () => {
    expect(pastEnd({ position: 11 }, { to: { position: 10 } })).toBe(true);
    expect(pastEnd({ position: 10 }, { to: { position: 10 } })).toBe(false);
    expect(pastEnd({ position: 1e9 }, { to: { time: 1 } })).toBe(false);
  });
});

describe('listOption', () => {
  it('splits repeated and comma-separated values, dropping empties', () => {
    expect(listOption(['NodeCreated,EdgeCreated', ' node ', ''])).toEqual(['NodeCreated', 'EdgeCreated', 'node']);
    expect(listOption(undefined)).toBeUndefined();
    expect(listOption([','])).toBeUndefined();
  });
});
