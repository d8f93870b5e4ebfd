import { fmix32 } from '@strata/domain/hashing/fmix32';

/**
 * The SQLite log indexes streams by a 53-bit integer rather than by name. Stream names are
 * long (`node-<org>:<uid>`): an integer entry is about a quarter of a name entry, so the
 * index has a quarter of the pages.
 *
 * The high 24 bits hash the stream's family (the name up to and including its first `:`,
 * e.g. `node-<org>:`, or the whole name when it has no `:`), so the streams of one family sit
 * in one key range and can be listed without scanning the log.
 *
 * The low 29 bits keep the order in which streams are created where the name says it: when
 * the rest of the name starts with a time-ordered uid (its first 48 bits the creation time in
 * ms, see time-ordered-uuid.ts), they are a time slot (16 ms wide, wrapping every 131 s) and a
 * 16-bit hash of the rest. A commit's new streams then land in one or two slots of the index,
 * on a few pages, instead of one random page each: once the index outgrows a commit, every
 * randomly placed entry was a 4 KB page of WAL (measured: 880 pages per 2,000 events at
 * 300,000 events). Wrapping keeps the key in 29 bits; entries of older cycles share a slot's
 * key range but are spread over all slots, so a slot holds 1/8192 of a family's streams.
 * Other names (random ids, digests, families without a rest) take a hash of the rest, as
 * before. Keys can collide: every query compares the stream name as well.
 */
const REST_BITS = 29;
const REST_SPAN = 2 ** REST_BITS;
const FAMILY_MASK = 0xffffff;
const SLOT_MS_BITS = 4; // 16 ms per slot
const SLOT_BITS = 13;
const TAIL_BITS = REST_BITS - SLOT_BITS;
const TAIL_SPAN = 2 ** TAIL_BITS;

/** The family part of a stream name: up to and including the first `:`, or the whole name. */
export function streamFamily(stream: string): string {
  const colon = stream.indexOf(':');
  return colon < 0 ? stream : stream.slice(0, colon + 1);
}

/** The integer the log indexes `stream` by (0 ≤ key < 2^53). */
export function streamKey(stream: string): number {
  const colon = stream.indexOf(':');
  const familyEnd = colon < 0 ? stream.length : colon + 1;
  const tail = hash32(stream, familyEnd, stream.length, 0x9747b28c);
  const ms = uidTimeMs(stream, familyEnd);
  const rest = ms < 0 ? tail % REST_SPAN : (Math.floor(ms / 2 ** SLOT_MS_BITS) % 2 ** SLOT_BITS) * TAIL_SPAN + (tail % TAIL_SPAN);
  return familyBase(stream, familyEnd) + rest;
}

/**
 * The key logs written before time slots used (a hash of the whole rest): the key a read-only
 * handle looks streams up by until the log is opened read-write and re-keyed.
 */
export function hashedStreamKey(stream: string): number {
  const colon = stream.indexOf(':');
  const familyEnd = colon < 0 ? stream.length : colon + 1;
  return familyBase(stream, familyEnd) + (hash32(stream, familyEnd, stream.length, 0x9747b28c) % REST_SPAN);
}

/**
 * The time in the first 48 bits of a uid at s[start] (eight lowercase hex digits, a dash, four more and a dash), or -1
 * when the text there has not that form.
 */
function uidTimeMs(s: string, start: number): number {
  if (s.length < start + 14 || s.charCodeAt(start + 8) !== 45 /* - */ || s.charCodeAt(start + 13) !== 45) return -1;
  let ms = 0;
  for (let i = start; i < start + 13; i++) {
    if (i === start + 8) continue;
    const c = s.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    ms = ms * 16 + d;
  }
  return ms;
}

/**
 * The key range [from, to) holding every stream of a family. `family` must be a whole family
 * (see streamFamily), e.g. `node-<org>:`.
 */
export function familyKeyRange(family: string): { from: number; to: number } {
  const from = familyBase(family, family.length);
  return { from, to: from + REST_SPAN };
}

function familyBase(stream: string, familyEnd: number): number {
  return (hash32(stream, 0, familyEnd, 0x811c9dc5) & FAMILY_MASK) * REST_SPAN;
}

/** FNV-1a over UTF-16 code units of s[start, end), then the murmur3 finaliser (spreads the low bits). */
function hash32(s: string, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** How the log maps names to keys; the default is the key above (tests inject colliding keys). */
export interface StreamKeys {
  key(stream: string): number;
  familyRange(family: string): { from: number; to: number };
}

export const DEFAULT_STREAM_KEYS: StreamKeys = { key: streamKey, familyRange: familyKeyRange };

/** The keys of a log written before time slots (the same family ranges). */
export const HASHED_STREAM_KEYS: StreamKeys = { key: hashedStreamKey, familyRange: familyKeyRange };
