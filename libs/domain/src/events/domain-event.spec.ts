import { DomainEvent, GraphEvent, eventFromLog, eventFields, isAccountEvent, isGraphEvent, unhandled } from './domain-event';

/** A projection that forgets a graph event type: kept here so `npm run typecheck` proves the rule. */
function forgetsOne(e: GraphEvent): string {
  switch (e.type) {
    case 'NodeCreated':
      return e.data.node.uid;
    default:
      // @ts-expect-error every other graph event type is still possible here, so `e` is not never
      unhandled(e);
      return '';
  }
}

describe('domain events', () => {
  it('narrow their data by type', () => {
    const e: DomainEvent = { type: 'AliasRemoved', data: { norm: 'ada', canonical_uid: 'n1' } };
    if (e.type === 'AliasRemoved') expect(e.data.canonical_uid).toBe('n1');
    expect(forgetsOne({ type: 'GraphCleared', data: { at: 1 } })).toBe('');
  });

  it('tell graph events from account events', () => {
    expect(isGraphEvent(eventFromLog('EdgeCreated', {}))).toBe(true);
    expect(isAccountEvent(eventFromLog('EdgeCreated', {}))).toBe(false);
    expect(isAccountEvent(eventFromLog('ApiKeyRevoked', {}))).toBe(true);
    expect(isGraphEvent(eventFromLog('ApiKeyRevoked', {}))).toBe(false);
  });

  it('pass over a type this build does not know (a newer log) instead of failing a projection', () => {
    const fromNewerVersion = eventFromLog('SomethingNew', { x: 1 });
    expect(isGraphEvent(fromNewerVersion)).toBe(false);
    expect(() => unhandled(fromNewerVersion as never)).not.toThrow();
  });

  it('show any event data as named fields, and no data as none', () => {
    expect(eventFields(eventFromLog('GraphCleared', { at: 5 }))).toEqual({ at: 5 });
    expect(eventFields({ data: null })).toEqual({});
  });
});
