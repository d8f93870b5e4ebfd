import { decideCreateNode } from '@strata/domain/graph';
import { anchorQuote } from '../quote-anchor';
import { ExtractedNode, LayerOutcome } from '../extractor.port';
import { OfflineExtractor } from './offline-extractor';

const TEXT = [
  'Ada Lovelace worked with Charles Babbage at the University of London in England.',
  'On 12 March 1843 she published her notes on the analytical engine.',
  'Revenue grew 12% in 2023.',
  'Will the analytical engine compute?',
  'We hypothesise that engines may think.',
  'Our goal is to build a parser.',
  'We decided to use TypeScript.',
  'I prefer green tea.',
  'Run the tests before merging.',
  'The analytical engine is a machine.',
  'Microsoft and Google Inc. compete in Paris.',
].join(' ');

const LAYERS = ['reality', 'epistemic', 'intent', 'action', 'memory'] as const;

async function extract(content = TEXT, layers: readonly (typeof LAYERS)[number][] | ('agent' | 'reality')[] = LAYERS): Promise<LayerOutcome[]> {
  return new OfflineExtractor().extract({ content, layers: [...layers] });
}

function nodesOf(outcomes: LayerOutcome[], layer: string): ExtractedNode[] {
  const o = outcomes.find((x) => x.layer === layer)!;
  if (!('nodes' in o)) throw new Error(o.error);
  return o.nodes;
}

const typed = (nodes: ExtractedNode[]) => nodes.map((n) => `${n.node_type}: ${n.label}`);

describe('OfflineExtractor', () => {
  it.each([
    ['reality', 'Person: Ada Lovelace'],
    ['reality', 'Person: Charles Babbage'],
    ['reality', 'Organization: University of London'],
    ['reality', 'Organization: Microsoft'],
    ['reality', 'Organization: Google Inc.'],
    ['reality', 'Place: England'],
    ['reality', 'Place: Paris'],
    ['reality', 'Event: On 12 March 1843 she published her notes on the analytical engine.'],
    ['reality', 'Concept: analytical engine'],
    ['epistemic', 'Claim: Revenue grew 12% in 2023.'],
    ['epistemic', 'Claim: Ada Lovelace worked with Charles Babbage at the University of London in England.'],
    ['epistemic', 'Question: Will the analytical engine compute?'],
    ['epistemic', 'Hypothesis: We hypothesise that engines may think.'],
    ['intent', 'Goal: Our goal is to build a parser.'],
    ['intent', 'Decision: We decided to use TypeScript.'],
    ['action', 'Affordance: Run the tests before merging.'],
    ['memory', 'Preference: I prefer green tea.'],
  ])('the %s pass finds %s', async (layer, expected) => {
    expect(typed(nodesOf(await extract(), layer))).toContain(expected);
  });

  it.each([
    ['epistemic', 'Claim: The analytical engine is a machine.'],
    ['epistemic', 'Claim: Will the analytical engine compute?'],
    ['intent', 'Decision: Will the analytical engine compute?'],
    ['reality', 'Concept: parser'],
  ])('the %s pass does not find %s', async (layer, unexpected) => {
    expect(typed(nodesOf(await extract(), layer))).not.toContain(unexpected);
  });

  it('sets event_date from the date expression, confidence 0.6 everywhere, and props the catalogue knows', async () => {
    const out = await extract();
    const event = nodesOf(out, 'reality').find((n) => n.node_type === 'Event')!;
    expect(event.props.event_date).toBe('1843-03-12');
    expect(nodesOf(out, 'reality').find((n) => n.label === 'Revenue grew 12% in 2023.')?.props.event_date).toBe('2023');
    for (const layer of LAYERS) for (const n of nodesOf(out, layer)) expect(n.confidence).toBe(0.6);
    expect(nodesOf(out, 'memory')[0].props).toEqual({ key: 'I', value: 'green tea', explicit: true });
    expect(nodesOf(out, 'action')[0].props).toMatchObject({ action_name: 'Run the tests before' });
  });

  it('anchors every quote in the chunk, in UTF-8 bytes', async () => {
    const content = `Zoë Müller 🎉 met Ada Lovelace in Paris on 3 May 2021. ${TEXT}`;
    const bytes = Buffer.from(content, 'utf8');
    for (const o of await extract(content)) {
      if (!('nodes' in o)) continue;
      for (const n of o.nodes) {
        const a = anchorQuote(content, n.quote)!;
        expect(a).not.toBeNull();
        expect(bytes.subarray(a.start, a.end).toString('utf8')).toBe(n.quote);
        expect(content.includes(a.prefix + a.exact + a.suffix)).toBe(true);
      }
    }
  });

  it('gives every node props the catalogue accepts', async () => {
    const write = { now: 1, agent_id: null, principal_id: 'p' };
    for (const o of await extract()) {
      if (!('nodes' in o)) continue;
      for (const n of o.nodes) expect(() => decideCreateNode({ node_type: n.node_type, label: n.label, props: n.props, confidence: n.confidence }, 'u', write)).not.toThrow();
    }
  });

  it('is deterministic', async () => {
    expect(await extract()).toEqual(await extract());
  });

  it('counts participants as people, and names the passes it has no rules for as failed', async () => {
    const out = await new OfflineExtractor().extract({ content: 'Kwame said the budget is 40 units.', layers: ['reality', 'agent'], context: { participants: [{ name: 'Kwame' }] } });
    expect(typed(nodesOf(out, 'reality'))).toContain('Person: Kwame');
    expect(out[1]).toEqual({ layer: 'agent', error: 'the offline extractor has no agent pass' });
  });
});

describe('anchorQuote', () => {
  it('gives byte offsets, context, and null for a quote not in the chunk', () => {
    const chunk = 'ééé target after';
    expect(anchorQuote(chunk, 'target')).toEqual({ exact: 'target', prefix: 'ééé ', suffix: ' after', start: 7, end: 13 });
    expect(anchorQuote(chunk, 'absent')).toBeNull();
  });
});
