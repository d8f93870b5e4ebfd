import { noteRecord } from '../testing/projection-event-fixtures';
import { textDocumentOf } from './text-document';

describe('textDocumentOf', () => {
  it('indexes a Claim whose content repeats its label once, in the label', () => {
    const claim = noteRecord('c', 'Prices will rise in March', { node_type: 'Claim', layer: 'epistemic', props: { _type: 'Claim', content: 'Prices will rise in March', scope: 'economy' } });
    expect(textDocumentOf('o', claim)).toMatchObject({ label: 'Prices will rise in March', summary: '', body: 'economy' });
  });

  it('keeps a summary that differs from the label and drops props repeating either or each other', () => {
    const claim = noteRecord('c', 'Prices rise', {
      node_type: 'Claim',
      layer: 'epistemic',
      summary: 'Energy costs push prices up',
      props: { _type: 'Claim', content: 'Energy costs push prices up', scope: 'Prices rise', unit: 'a report', uncertainty_range: 'a report' },
    });
    const doc = textDocumentOf('o', claim);
    expect(doc.summary).toBe('Energy costs push prices up');
    expect(doc.body.split('\n').sort()).toEqual(['a report']);
  });

  it('does not index a summary equal to the label a second time', () => {
    expect(textDocumentOf('o', noteRecord('n', 'Same words', { summary: 'Same words' })).summary).toBe('');
  });

  it('keeps every distinct string of the props, newline-joined in the catalogue’s order', () => {
    const q = noteRecord('q', 'Why is it slow?', { node_type: 'Question', layer: 'epistemic', props: { _type: 'Question', text: 'Is the disk the cause?', scope: 'the nightly job' } });
    const body = textDocumentOf('o', q).body;
    expect(body.split('\n').sort()).toEqual(['Is the disk the cause?', 'the nightly job'].sort());
  });
});
