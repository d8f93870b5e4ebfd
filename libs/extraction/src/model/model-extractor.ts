import { ChatModel, ChatRequest } from '@strata/ai/llm/chat-model.port';
import { getNodeType, validateNodeProps } from '@strata/domain/catalogue';
import { DomainError } from '@strata/domain/errors';
import { Layer } from '@strata/domain/records';
import { ChunkExtractionInput, ExtractedNode, ExtractionContext, Extractor, LayerOutcome } from '../extractor.port';
import { extractionSchema, layerTypes, typeFieldLines } from './extraction-schema';

const SYSTEM = [
  'You extract a knowledge graph from text. Return only nodes the text supports.',
  'For each node give its type, a short label, the exact passage it comes from (copied verbatim, so it can be found in the text), your confidence (0-1) and its props.',
  'Use only the props fields listed for the type; leave out fields the text does not give.',
].join(' ');

function prompt(layer: Layer, content: string, ctx: ExtractionContext | undefined): string {
  const lines = [`Layer: ${layer}. Node types and their props fields:`, ...typeFieldLines(layer).map((l) => `- ${l}`)];
  if (ctx?.title) lines.push(`Document title: ${ctx.title}`);
  if (ctx?.participants?.length)
    lines.push(`Participants: ${ctx.participants.map((p) => [p.name, p.role, p.organization].filter(Boolean).join(', ')).join('; ')}`);
  if (ctx?.occurred_at) lines.push(`Occurred at: ${ctx.occurred_at}`);
  if (ctx?.context) lines.push(`Context: ${ctx.context}`);
  lines.push('Text:', '"""', content, '"""');
  return lines.join('\n');
}

/** Checks the model's answer against the pass's types and the catalogue; throws a short reason. */
export function readModelNodes(layer: Layer, json: unknown): ExtractedNode[] {
  if (json === null || typeof json !== 'object' || !Array.isArray((json as { nodes?: unknown }).nodes)) throw new Error('the answer is not an object with a nodes array');
  const allowed = layerTypes(layer);
  return (json as { nodes: unknown[] }).nodes.map((raw, i) => {
    const n = raw as Record<string, unknown>;
    if (!n || typeof n !== 'object') throw new Error(`nodes[${i}] is not an object`);
    if (typeof n.node_type !== 'string' || !allowed.includes(n.node_type)) throw new Error(`nodes[${i}].node_type must be one of ${allowed.join(', ')}`);
    if (typeof n.label !== 'string' || !n.label.trim()) throw new Error(`nodes[${i}].label must be a non-empty string`);
    const confidence = typeof n.confidence === 'number' && n.confidence >= 0 && n.confidence <= 1 ? n.confidence : 0.8;
    const props = n.props && typeof n.props === 'object' && !Array.isArray(n.props) ? (n.props as Record<string, unknown>) : {};
    const clean: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(props)) if (v !== null && k !== '_type') clean[k] = v;
    try {
      validateNodeProps(n.node_type, getNodeType(n.node_type)!, { ...clean, _type: n.node_type }, { mode: 'create', fieldPrefix: `nodes[${i}].props` });
    } catch (err) {
      throw new Error(err instanceof DomainError ? err.message : String(err));
    }
    return { node_type: n.node_type, label: n.label.trim(), props: clean, quote: typeof n.quote === 'string' ? n.quote : '', confidence };
  });
}

/**
 * Extraction through the configured chat model (REFERENCE §9.6): one structured call per
 * layer pass, asking for JSON matching a schema derived from the node catalogue. An answer
 * that does not parse or validate is asked for again once, with the validation error; a
 * second failure, or a provider failure, fails that pass only. Errors name the reason, never
 * the prompt or the provider's body.
 */
export class ModelExtractor implements Extractor {
  readonly method = 'llm' as const;

  constructor(private readonly model: ChatModel) {}

  async extract(input: ChunkExtractionInput): Promise<LayerOutcome[]> {
    return Promise.all(input.layers.map((layer) => this.pass(layer, input)));
  }

  private async pass(layer: Layer, input: ChunkExtractionInput): Promise<LayerOutcome> {
    if (layerTypes(layer).length === 0) return { layer, error: `no ${layer} pass is available` };
    const req: ChatRequest = {
      system: SYSTEM,
      messages: [{ role: 'user', content: prompt(layer, input.content, input.context) }],
      output: { name: `extract_${layer}`, schema: extractionSchema(layer) },
      temperature: 0,
      signal: input.signal,
    };
    let lastError = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      let text: string;
      let json: unknown;
      try {
        const res = await this.model.chat(req);
        text = res.text;
        json = res.json !== undefined ? res.json : parseJson(res.text);
      } catch (err) {
        return { layer, error: err instanceof DomainError ? err.message : `${this.model.provider} call failed` };
      }
      try {
        if (json === undefined) throw new Error('the answer is not valid JSON');
        return { layer, nodes: readModelNodes(layer, json) };
      } catch (err) {
        lastError = (err as Error).message;
        req.messages = [...req.messages, { role: 'assistant', content: text }, { role: 'user', content: `That answer is invalid: ${lastError}. Answer again with JSON that matches the schema.` }];
      }
    }
    return { layer, error: `structured output invalid after a retry: ${lastError}` };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
