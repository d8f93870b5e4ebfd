import { DomainError } from '../errors';
import { chunkText, estimateTokens, readChunking, utf8Length } from './chunking';
import { draftedChunkUid } from './chunk-uid';
import { chunkOfReason, documentOfChunkReason, orphanedChunk } from './chunk-origin';
import { decideDedup } from './dedup';
import { occurredAtSeconds, readOccurredAt } from './ingest-requests';
import { EXTRACTION_REASON, createdByExtraction } from './extracted-nodes';
import { finalStatuses } from './final-status';
import { defaultTitle, documentChunkLabel, standaloneChunkLabel } from './labels';
import { resolveLayers } from './layers';

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof DomainError ? `${e.status} ${e.code}` : String(e);
  }
}

describe('layer resolution', () => {
  it.each([
    ['chunk', {}, ['reality', 'epistemic', 'memory']],
    ['document', {}, ['reality', 'epistemic']],
    ['document', { content_type: 'article' }, ['reality', 'epistemic']],
    ['document', { content_type: 'meeting_notes' }, ['reality', 'epistemic', 'intent', 'action']],
    ['document', { content_type: 'report' }, ['reality', 'epistemic', 'intent', 'action']],
    ['document', { content_type: 'journal' }, ['reality', 'epistemic', 'intent', 'memory']],
    ['session', {}, ['reality', 'epistemic', 'intent', 'action', 'memory']],
    ['document', { content_type: 'journal', layers: ['agent'] }, ['agent']],
    ['chunk', { layers: ['memory', 'memory', 'reality'] }, ['memory', 'reality']],
  ] as const)('%s %j runs %j', (mode, body, expected) => {
    expect(resolveLayers(mode, { ...body }, null).layers).toEqual(expected);
  });

  it.each([
    [{ layers: ['reality', 'dreams'] }, '400 invalid_field'],
    [{ layers: [] }, '400 invalid_field'],
    [{ layers: 'reality' }, '400 invalid_field'],
    [{ content_type: 'poem' }, '400 invalid_field'],
    [{ layers: ['ontology'] }, '409 schema_not_active'],
  ])('refuses %j with %s', (body, code) => {
    expect(codeOf(() => resolveLayers('document', body, null))).toBe(code);
  });

  it('adds the ontology pass for a schema id, and uses the active schema for a bare ontology layer', () => {
    expect(resolveLayers('chunk', { ontology_schema_id: 's1' }, null)).toEqual({ layers: ['reality', 'epistemic', 'memory', 'ontology'], ontology_schema_id: 's1' });
    expect(resolveLayers('chunk', { layers: ['ontology'] }, 'active')).toEqual({ layers: ['ontology'], ontology_schema_id: 'active' });
  });
});

describe('chunking options', () => {
  it.each([
    [{}, { size: 2000, overlap: 200 }],
    [{ chunk_size: 100 }, { size: 100, overlap: 99 }],
    [{ chunk_size: 1000, chunk_overlap: 0.25 }, { size: 1000, overlap: 250 }],
    [{ chunk_size: 1000, chunk_overlap: 0 }, { size: 1000, overlap: 0 }],
    [{ chunk_size: 8000, chunk_overlap: 500 }, { size: 8000, overlap: 500 }],
  ])('%j reads as %j', (body, expected) => {
    expect(readChunking(body)).toEqual(expected);
  });

  it.each([
    [{ chunk_size: 99 }],
    [{ chunk_size: 8001 }],
    [{ chunk_size: 150.5 }],
    [{ chunk_size: 500, chunk_overlap: 500 }],
    [{ chunk_overlap: -1 }],
    [{ chunk_size: '500' }],
  ])('%j is 400 invalid_field', (body) => {
    expect(codeOf(() => readChunking(body))).toBe('400 invalid_field');
  });
});

describe('chunkText', () => {
  const bytesOf = (s: string) => Buffer.from(s, 'utf8');

  it('keeps a short text whole, offsets in UTF-8 bytes', () => {
    const text = 'Zoë met Łukasz in Kraków. 🎉';
    const [c] = chunkText(text, { size: 100, overlap: 0 });
    expect(c).toEqual({ index: 0, content: text, start: 0, end: utf8Length(text), token_estimate: estimateTokens(text) });
    expect(c.end).toBe(bytesOf(text).length);
  });

  it('prefers paragraph breaks, then sentence ends, then whitespace', () => {
    const para = 'a'.repeat(300) + '.\n\n' + 'b '.repeat(200);
    expect(chunkText(para, { size: 100, overlap: 0 })[0].content).toBe('a'.repeat(300) + '.');
    const sentences = 'word '.repeat(50) + 'end. ' + 'more '.repeat(60);
    expect(chunkText(sentences, { size: 100, overlap: 0 })[0].content.endsWith('end.')).toBe(true);
    const words = 'word '.repeat(200);
    const first = chunkText(words, { size: 100, overlap: 0 })[0].content;
    expect(first.length).toBeLessThanOrEqual(400);
    expect(first.endsWith('word')).toBe(true);
  });

  it('never splits a character, and every chunk is the document slice its byte offsets name', () => {
    const text = ('😀'.repeat(150) + ' Ünïcödé text 文字 ').repeat(30);
    const doc = bytesOf(text);
    const chunks = chunkText(text, { size: 100, overlap: 20 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(doc.subarray(c.start, c.end).toString('utf8')).toBe(c.content);
      expect(c.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      expect(c.token_estimate).toBeLessThanOrEqual(100);
    }
  });

  it('overlaps consecutive chunks by about the overlap, starting at a word', () => {
    const text = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    const chunks = chunkText(text, { size: 100, overlap: 25 });
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i].start).toBeLessThan(chunks[i - 1].end);
      expect(chunks[i - 1].end - chunks[i].start).toBeLessThanOrEqual(100);
      expect(chunks[i].content).toMatch(/^w\d+/);
    }
    const covered = chunks.map((c) => c.content).join(' ');
    expect(covered).toContain('w399');
  });

  it('covers the whole text without overlap, indices in order, no whitespace-only chunk', () => {
    const text = 'Sentence one is here. '.repeat(500);
    const chunks = chunkText(text, { size: 200, overlap: 0 });
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    expect(chunks.map((c) => c.content).join(' ')).toBe(text.trim());
    expect(chunkText('   \n\n  ', { size: 100, overlap: 0 })).toEqual([]);
  });
});

describe('labels', () => {
  it.each([
    ['Title line\nbody', 'Title line'],
    ['\n\n  Leading blank lines\nrest', 'Leading blank lines'],
    ['x'.repeat(200), 'x'.repeat(120)],
  ])('default title of %j is %j', (content, title) => {
    expect(defaultTitle(content)).toBe(title);
  });

  it('names chunks', () => {
    expect(documentChunkLabel('Report', 3)).toBe('Report · chunk 3');
    expect(standaloneChunkLabel('mine', 'content')).toBe('mine');
    expect(standaloneChunkLabel(undefined, 'é'.repeat(100))).toBe('é'.repeat(80));
  });
});

describe('deduplication', () => {
  const sim = (table: Record<string, number>) => (n: string) => table[n] ?? 0;
  const c = (uid: string, norms: string[], created_at = 1) => ({ uid, norms, created_at });

  it.each([
    ['exact label or alias match reuses', [c('a', ['other', 'ada lovelace'])], {}, { action: 'reuse', uid: 'a', similarity: 1 }],
    ['0.9 reuses', [c('a', ['ada lovelac'])], { 'ada lovelac': 0.9 }, { action: 'reuse', uid: 'a', similarity: 0.9 }],
    ['0.89 creates with a possible duplicate', [c('a', ['x'])], { x: 0.89 }, { action: 'create', possible_duplicate: { uid: 'a', similarity: 0.89 } }],
    ['0.7 flags', [c('a', ['x'])], { x: 0.7 }, { action: 'create', possible_duplicate: { uid: 'a', similarity: 0.7 } }],
    ['0.69 creates', [c('a', ['x'])], { x: 0.69 }, { action: 'create', possible_duplicate: null }],
    ['no candidates creates', [], {}, { action: 'create', possible_duplicate: null }],
    ['best wins, ties to the oldest', [c('b', ['x'], 2), c('a', ['y'], 3), c('c', ['x'], 1)], { x: 0.95, y: 0.8 }, { action: 'reuse', uid: 'c', similarity: 0.95 }],
  ])('%s', (_name, candidates, table, expected) => {
    expect(decideDedup('ada lovelace', candidates, sim(table))).toEqual(expected);
  });
});

describe('final statuses', () => {
  it.each([
    [{ total: 3, completed: 3, failed: 0, cancelled: false }, { job: 'completed', document: 'completed' }],
    [{ total: 3, completed: 2, failed: 1, cancelled: false }, { job: 'completed', document: 'partial' }],
    [{ total: 3, completed: 1, failed: 0, cancelled: true }, { job: 'completed', document: 'partial' }],
    [{ total: 3, completed: 0, failed: 3, cancelled: false }, { job: 'failed', document: 'failed' }],
    [{ total: 3, completed: 0, failed: 0, cancelled: true }, { job: 'failed', document: 'failed' }],
    [{ total: 0, completed: 0, failed: 0, cancelled: false }, { job: 'completed', document: 'completed' }],
  ])('%j ends %j', (counts, expected) => {
    expect(finalStatuses(counts)).toEqual(expected);
  });
});

describe('draftedChunkUid', () => {
  it('gives every attempt of a job the same uid for a chunk, another for another chunk, job or document', () => {
    const uid = draftedChunkUid('salt-1', 'doc-1', 3);
    expect(uid).toBe(draftedChunkUid('salt-1', 'doc-1', 3));
    expect(new Set([uid, draftedChunkUid('salt-1', 'doc-1', 4), draftedChunkUid('salt-2', 'doc-1', 3), draftedChunkUid('salt-1', 'doc-2', 3)]).size).toBe(4);
  });

  it('is a lowercase version-4 UUID of the RFC variant, as graph uids are', () => {
    for (let i = 0; i < 50; i++) expect(draftedChunkUid('s', 'd', i)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('createdByExtraction', () => {
  it('counts a node an extraction created, and not one created elsewhere that an extraction reused', () => {
    expect(createdByExtraction({ reason: EXTRACTION_REASON, request_id: 'job:1' }, [])).toBe(true);
    expect(createdByExtraction({ reason: null, request_id: 'req-user' }, ['job:1'])).toBe(false);
    expect(createdByExtraction({ reason: 'imported', request_id: 'req-user' }, [])).toBe(false);
    expect(createdByExtraction(null, ['job:1'])).toBe(false);
  });

  it('counts a node written before the reason was recorded when its creating request also wrote one of its provenance edges', () => {
    expect(createdByExtraction({ reason: null, request_id: 'job:1' }, ['job:2', 'job:1'])).toBe(true);
  });
});

describe('orphaned chunks', () => {
  it('reads back the Document a chunk was created for from its creation reason', () => {
    expect(documentOfChunkReason(chunkOfReason('doc-1'))).toBe('doc-1');
    expect(documentOfChunkReason(null)).toBeNull();
    expect(documentOfChunkReason('merged into x')).toBeNull();
  });

  it('is an orphan when every Document it names is missing or tombstoned, and never when it names none', () => {
    expect(orphanedChunk([null])).toBe(true);
    expect(orphanedChunk([{ tombstone_at: 5 }])).toBe(true);
    expect(orphanedChunk([{ tombstone_at: null }])).toBe(false);
    expect(orphanedChunk([null, { tombstone_at: null }])).toBe(false);
    expect(orphanedChunk([])).toBe(false);
  });
});

describe('occurred_at', () => {
  it('takes a date, a date-time, or partial precision (a year, a month), and refuses anything else', () => {
    // instants as Unix seconds: the rule parses the text it is given and reads no clock
    expect(readOccurredAt({ occurred_at: '2031-03' })).toBe('2031-03');
    expect(occurredAtSeconds('2031-03')).toBe(1930089600);
    expect(occurredAtSeconds('2031')).toBe(1924992000);
    expect(occurredAtSeconds('2031-03-02T10:00:00.250Z')).toBe(1930212000.25);
    expect(codeOf(() => readOccurredAt({ occurred_at: '2031-13' }))).toBe('400 invalid_field');
    expect(codeOf(() => readOccurredAt({ occurred_at: 'yesterday' }))).toBe('400 invalid_field');
  });
});
