import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import type { AllStreamResolvedEvent, ResolvedEvent } from '@kurrent/kurrentdb-client';
import { EventMetadata, NewEvent, eventFromLog } from '@strata/domain/events';
import { WrongExpectedRevisionError } from '../event-store.port';
import {
  METADATA_PROPERTY,
  PositionMemory,
  USER_STREAMS_REGEX,
  decodeMetadata,
  encodeMetadata,
  fromCurrentStreamState,
  isDeleteOfMissingStream,
  isMissingStreamError,
  mapAppendError,
  matchesPrefixes,
  planAppend,
  positionToNumber,
  revisionsFromResult,
  streamFilter,
  toAppendStreamState,
  toEventData,
  toRecordedEvent,
  slices,
} from './kurrentdb-translation';

const metadata: EventMetadata = {
  org_id: 'org1',
  principal: { kind: 'agent', id: 'a1' },
  credential_id: 'k1',
  agent_id: 'a1',
  request_id: 'req-1',
  causation_id: null,
  correlation_id: 'c1',
  occurred_at: 1_700_000_000.5,
};
const ev = (type: string, data: unknown = { x: 1 }): NewEvent => ({ ...eventFromLog(type, data), metadata });

function allEvent(over: Partial<Record<string, unknown>> = {}): AllStreamResolvedEvent {
  return {
    event: {
      streamId: 'node-org1:n1',
      id: '6f1c0a8e-1111-4a4a-8888-000000000001',
      isJson: true,
      revision: 3n,
      type: 'NodeCreated',
      created: new Date(0),
      data: { uid: 'n1' },
      metadata: { [METADATA_PROPERTY]: JSON.stringify(metadata), '$schema.name': 'NodeCreated' },
      position: { commit: 4242n, prepare: 4242n },
      ...over,
    },
    commitPosition: 4242n,
  } as AllStreamResolvedEvent;
}

describe('kurrentdb translation', () => {
  describe('expected revisions', () => {
    it('maps every ExpectedRevision form to a stream state', () => {
      expect(toAppendStreamState('any')).toBe(ANY);
      expect(toAppendStreamState('no_stream')).toBe(NO_STREAM);
      expect(toAppendStreamState('exists')).toBe(STREAM_EXISTS);
      expect(toAppendStreamState(0)).toBe(0n);
      expect(toAppendStreamState(41)).toBe(41n);
      expect(toAppendStreamState(-1)).toBe(NO_STREAM); // streamRevision() of a missing stream
    });

    it('rejects revisions the port cannot mean', () => {
      expect(() => toAppendStreamState(-2)).toThrow(RangeError);
      expect(() => toAppendStreamState(1.5)).toThrow(RangeError);
      expect(() => toAppendStreamState(Number.MAX_SAFE_INTEGER + 2)).toThrow(RangeError);
    });

    it('maps the current stream state back to a port revision', () => {
      expect(fromCurrentStreamState(NO_STREAM)).toBe(-1);
      expect(fromCurrentStreamState(7n)).toBe(7);
      expect(fromCurrentStreamState(-5n)).toBe(-1); // deleted
      expect(fromCurrentStreamState(undefined)).toBe(-1);
    });
  });

  describe('metadata', () => {
    it('encodes the envelope as string properties only (a multiStreamAppend requirement)', () => {
      const props = encodeMetadata(metadata);
      expect(Object.keys(props)).toEqual([METADATA_PROPERTY]);
      expect(Object.values(props).every((v) => typeof v === 'string')).toBe(true);
      expect(METADATA_PROPERTY.startsWith('$')).toBe(false); // $-properties are reserved by the server
    });

    it('round-trips through the metadata the server synthesizes (extra keys ignored)', () => {
      const synthesized = { ...encodeMetadata(metadata), '$schema.name': 'NodeCreated', '$schema.format': 'Json' };
      expect(decodeMetadata(JSON.parse(JSON.stringify(synthesized)))).toEqual(metadata);
    });

    it('accepts plain JSON metadata written by other tools and degrades to {} otherwise', () => {
      expect(decodeMetadata(metadata)).toEqual(metadata);
      expect(decodeMetadata({ [METADATA_PROPERTY]: metadata })).toEqual(metadata);
      expect(decodeMetadata(new Uint8Array([1, 2]))).toEqual({});
      expect(decodeMetadata(undefined)).toEqual({});
    });
  });

  describe('events', () => {
    it('builds a JSON event with our id, type, data and encoded metadata', () => {
      const data = toEventData(ev('NodeCreated', { uid: 'n1' }), 'id-1');
      expect(data).toMatchObject({
        id: 'id-1',
        contentType: 'application/json',
        type: 'NodeCreated',
        data: { uid: 'n1' },
        metadata: encodeMetadata(metadata),
      });
      expect(toEventData({ ...eventFromLog('X', undefined), metadata }, 'id-2').data).toBeNull();
      expect(toEventData(ev('X', null), 'id-3').data).toBeNull();
    });

    it('converts a recorded $all event, with the prepare position as its number', () => {
      expect(toRecordedEvent(allEvent())).toEqual({
        id: '6f1c0a8e-1111-4a4a-8888-000000000001',
        stream: 'node-org1:n1',
        revision: 3,
        position: 4242,
        type: 'NodeCreated',
        data: { uid: 'n1' },
        metadata,
      });
      const inTx = toRecordedEvent(allEvent({ position: { commit: 5000n, prepare: 4800n } }));
      expect(inTx?.position).toBe(4800);
    });

    it('skips system streams, system/link event types and empty resolutions', () => {
      expect(toRecordedEvent(allEvent({ streamId: '$$node-org1:n1' }))).toBeUndefined();
      expect(toRecordedEvent(allEvent({ type: '$metadata' }))).toBeUndefined();
      expect(toRecordedEvent(allEvent({ type: '$>' }))).toBeUndefined();
      expect(toRecordedEvent({} as ResolvedEvent)).toBeUndefined();
    });

    it('falls back to the commit position of a stream read and insists on having one', () => {
      const e = allEvent({ position: undefined });
      expect(toRecordedEvent(e)?.position).toBe(4242);
      expect(() => toRecordedEvent({ event: e.event } as ResolvedEvent)).toThrow(/25\.1/);
    });
  });

  describe('append plan', () => {
    const ids = () => {
      let i = 0;
      return () => `id-${++i}`;
    };

    it('one request per written stream in order; empty streams become checks', () => {
      const plan = planAppend(
        [
          { stream: 'b', expectedRevision: 3, events: [ev('B1'), ev('B2')] },
          { stream: 'guard', expectedRevision: 'exists', events: [] },
          { stream: 'a', expectedRevision: 'no_stream', events: [ev('A0')] },
        ],
        ids(),
      );
      expect(plan.requests.map((r) => [r.streamName, r.expectedState, r.events.map((e) => [e.id, e.type])])).toEqual([
        ['b', 3n, [['id-1', 'B1'], ['id-2', 'B2']]],
        ['a', NO_STREAM, [['id-3', 'A0']]],
      ]);
      expect(plan.checks).toEqual([{ stream: 'guard', expected: 'exists' }]);
    });

    it('rejects the same malformed appends as every adapter', () => {
      const dup = [
        { stream: 'a', expectedRevision: 'any' as const, events: [ev('A')] },
        { stream: 'a', expectedRevision: 'any' as const, events: [ev('B')] },
      ];
      expect(() => planAppend(dup, ids())).toThrow(/more than once/);
      expect(() => planAppend([{ stream: 'a', expectedRevision: -3, events: [ev('A')] }], ids())).toThrow(RangeError);
      expect(() => planAppend([{ stream: '', expectedRevision: 'any', events: [ev('A')] }], ids())).toThrow(TypeError);
      expect(() => planAppend([{ stream: 'a', expectedRevision: 'any', events: [ev('', 1)] }], ids())).toThrow(
        /type/,
      );
    });

    it('reads per-stream revisions from the multi-append result', () => {
      expect(
        revisionsFromResult({
          position: 99n,
          responses: [
            { streamName: 'a', revision: 0n },
            { streamName: 'b', revision: 4n },
          ],
        }),
      ).toEqual({ a: 0, b: 4 });
    });
  });

  describe('positions', () => {
    it('uses the prepare position and refuses values beyond 2^53', () => {
      expect(positionToNumber({ commit: 10n, prepare: 10n })).toBe(10);
      expect(() => positionToNumber({ commit: 2n ** 60n, prepare: 2n ** 60n })).toThrow(RangeError);
    });

    it('resumes from START, from a remembered pair, or from {P, P}', () => {
      const mem = new PositionMemory();
      expect(mem.startAfter(0)).toBe(START);
      expect(mem.startAfter(1234)).toEqual({ commit: 1234n, prepare: 1234n });
      mem.remember({ commit: 900n, prepare: 1234n });
      expect(mem.startAfter(1234)).toEqual({ commit: 900n, prepare: 1234n });
    });

    it('forgets the oldest remembered pairs first', () => {
      const mem = new PositionMemory(2);
      mem.remember({ commit: 1n, prepare: 10n });
      mem.remember({ commit: 2n, prepare: 20n });
      mem.remember({ commit: 3n, prepare: 30n });
      expect(mem.startAfter(10)).toEqual({ commit: 10n, prepare: 10n });
      expect(mem.startAfter(20)).toEqual({ commit: 2n, prepare: 20n });
      expect(mem.startAfter(30)).toEqual({ commit: 3n, prepare: 30n });
    });
  });

  describe('filters', () => {
    it('filters on stream names: user streams by default, else the given prefixes', () => {
      expect(streamFilter()).toMatchObject({ filterOn: 'streamName', regex: USER_STREAMS_REGEX });
      expect(new RegExp(USER_STREAMS_REGEX).test('node-o:1')).toBe(true);
      expect(new RegExp(USER_STREAMS_REGEX).test('$all')).toBe(false);
      expect(streamFilter(['node-o1:', 'edge-o1:'])).toMatchObject({ filterOn: 'streamName', prefixes: ['node-o1:', 'edge-o1:'] });
    });

    it('matches prefixes literally on the client too', () => {
      expect(matchesPrefixes('node-o1:a', ['edge-', 'node-o1:'])).toBe(true);
      expect(matchesPrefixes('node-o1:a', ['Node-'])).toBe(false);
      expect(matchesPrefixes('anything')).toBe(true);
      expect(matchesPrefixes('anything', [])).toBe(false);
    });
  });

  describe('errors', () => {
    const appends = [
      { stream: 'a', expectedRevision: 'any' as const, events: [ev('A')] },
      { stream: 'b', expectedRevision: 2, events: [ev('B')] },
    ];

    it('maps a revision conflict to WrongExpectedRevisionError with the caller expectation', () => {
      const err = new WrongExpectedVersionError(undefined, { streamName: 'b', expected: 2n, current: 5n });
      const mapped = mapAppendError(err, appends) as WrongExpectedRevisionError;
      expect(mapped).toBeInstanceOf(WrongExpectedRevisionError);
      expect([mapped.stream, mapped.expected, mapped.actual]).toEqual(['b', 2, 5]);
    });

    it('reports a missing stream as actual -1', () => {
      const err = new WrongExpectedVersionError(undefined, { streamName: 'b', expected: STREAM_EXISTS, current: NO_STREAM });
      const mapped = mapAppendError(err, [{ stream: 'b', expectedRevision: 'exists', events: [ev('B')] }]) as WrongExpectedRevisionError;
      expect([mapped.expected, mapped.actual]).toEqual(['exists', -1]);
    });

    it('falls back to the server expectation for a stream it cannot match', () => {
      const err = new WrongExpectedVersionError(undefined, { streamName: 'zz', expected: 7n, current: 8n });
      const mapped = mapAppendError(err, appends) as WrongExpectedRevisionError;
      expect([mapped.stream, mapped.expected, mapped.actual]).toEqual(['zz', 7, 8]);
    });

    it('passes other errors through', () => {
      const other = new Error('unavailable');
      expect(mapAppendError(other, appends)).toBe(other);
    });

    it('recognises missing-stream answers', () => {
      const notFound = new StreamNotFoundError(undefined, 'a');
      expect(isMissingStreamError(notFound)).toBe(true);
      expect(isMissingStreamError(new Error('x'))).toBe(false);
      expect(isDeleteOfMissingStream(notFound)).toBe(true);
      expect(isDeleteOfMissingStream(new WrongExpectedVersionError(undefined, { streamName: 'a', expected: ANY, current: -1n }))).toBe(true);
      expect(isDeleteOfMissingStream(new WrongExpectedVersionError(undefined, { streamName: 'a', expected: 3n, current: 5n }))).toBe(false);
    });
  });
});

describe('slices', () => {
  it('cuts a list into consecutive pieces of at most the size, keeping every item once and in order', () => {
    expect(slices([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(slices([], 64)).toEqual([]);
    expect(slices([1, 2], 64)).toEqual([[1, 2]]);
  });

  it('refuses a size below one (it would never finish)', () => {
    expect(() => slices([1], 0)).toThrow('at least 1');
  });
});
