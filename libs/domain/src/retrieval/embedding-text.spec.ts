import { embeddingTextOf } from './embedding-text';

const node = (node_type: string, label: string, props: Record<string, unknown>, summary = '') => ({ node_type, label, summary, props: { _type: node_type, ...props } });

describe('embeddingTextOf', () => {
  it('embeds a Claim whose content is its label once', () => {
    const s = 'Ada Lovelace joined Acme Corporation in London on 3 March 1960.';
    expect(embeddingTextOf(node('Claim', s, { content: s }))).toBe(s);
  });

  it('keeps a prop that differs from the label, after it', () => {
    expect(embeddingTextOf(node('Claim', 'short label', { content: 'the full sentence' }))).toBe('short label\nthe full sentence');
  });

  it('drops a summary equal to the label and a prop repeating the summary', () => {
    expect(embeddingTextOf(node('Concept', 'memory safety', { name: 'safe memory' }, 'memory safety'))).toBe('memory safety\nsafe memory');
    expect(embeddingTextOf(node('Concept', 'memory safety', { name: 'a summary' }, 'a summary'))).toBe('memory safety\na summary');
  });

  it('embeds an Event description repeating its label once, its other string props kept', () => {
    const s = 'The launch happened on 3 March 1960.';
    expect(embeddingTextOf(node('Event', s, { description: s, event_date: '1960-03-03' }))).toBe(embeddingTextOf(node('Event', s, { event_date: '1960-03-03' })));
  });

  it('keeps distinct props of a custom type in order', () => {
    expect(embeddingTextOf(node('Widget', 'w', { a: 'x', b: 'w', c: ['x', 'y'] }))).toBe('w\nx\ny');
  });
});
