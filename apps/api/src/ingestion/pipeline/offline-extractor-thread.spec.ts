import { LayerOutcome, OfflineExtractor } from '@strata/extraction';
import { OfflineExtractorThread } from './offline-extractor-thread';

const LAYERS = ['reality', 'epistemic', 'intent', 'action', 'memory', 'agent'] as const;
const TEXTS = [
  'Ada Lovelace joined Acme Corporation in London on 12 March 1843. Revenue grew 12% in 2023.',
  'Will the analytical engine compute? We hypothesise that engines may think. Our goal is to build a parser.',
  'We decided to use TypeScript. I prefer green tea. Run the tests before merging. Grace Hopper met Ada Lovelace in Paris.',
];
const context = { title: 'Notes', participants: [{ name: 'Barbara Liskov' }] };

const inProcess = (content: string): Promise<LayerOutcome[]> => new OfflineExtractor().extract({ content, layers: [...LAYERS], context });

describe('OfflineExtractorThread', () => {
  let thread: OfflineExtractorThread;
  beforeEach(() => (thread = new OfflineExtractorThread()));
  afterEach(() => thread.close());

  it('gives every chunk the outcomes the in-process extractor gives, chunks asked at once answered each with its own', async () => {
    const answers = await Promise.all(TEXTS.map((content) => thread.extract({ content, layers: [...LAYERS], context })));
    for (let i = 0; i < TEXTS.length; i++) expect(answers[i]).toEqual(await inProcess(TEXTS[i]));
    // the participant named in the context is a Person, as in process
    expect(JSON.stringify(answers[0])).toContain('Ada Lovelace');
  });

  it('still answers the chunks it held when it is stopped meanwhile, and every chunk after, in process', async () => {
    const held = TEXTS.map((content) => thread.extract({ content, layers: [...LAYERS], context }));
    await thread.close();
    const after = await thread.extract({ content: TEXTS[2], layers: [...LAYERS], context });
    const answers = await Promise.all(held);
    for (let i = 0; i < TEXTS.length; i++) expect(answers[i]).toEqual(await inProcess(TEXTS[i]));
    expect(after).toEqual(await inProcess(TEXTS[2]));
  });
});
