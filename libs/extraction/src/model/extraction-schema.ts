import { JsonSchema } from '@strata/ai/llm/chat-model.port';
import { getNodeType } from '@strata/domain/catalogue';
import { LAYER_TYPES } from '@strata/domain/ingestion';
import { Layer } from '@strata/domain/records';

/** The node types a layer pass may return (REFERENCE §9.1), all catalogue built-ins. */
export function layerTypes(layer: Layer): readonly string[] {
  return layer === 'ontology' ? [] : LAYER_TYPES[layer];
}

/**
 * The JSON the model is asked for: `{nodes:[{node_type, label, quote, confidence, props}]}`,
 * `node_type` closed to the pass's types. Props stay an object here (one schema per type
 * would be a union most structured-output modes refuse); their fields are listed in the
 * prompt and checked against the catalogue after the call.
 */
export function extractionSchema(layer: Layer): JsonSchema {
  return {
    type: 'object',
    properties: {
      nodes: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            node_type: { type: 'string', enum: [...layerTypes(layer)] },
            label: { type: 'string', minLength: 1, maxLength: 1000 },
            quote: { type: 'string', description: 'the exact passage of the text the node comes from, copied verbatim' },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
            props: { type: 'object' },
          },
          required: ['node_type', 'label', 'quote', 'confidence', 'props'],
          additionalProperties: false,
        },
      },
    },
    required: ['nodes'],
    additionalProperties: false,
  };
}

/** One line per type: its props fields from the catalogue, e.g. `Claim: content (string), …`. */
export function typeFieldLines(layer: Layer): string[] {
  return layerTypes(layer).map((t) => {
    const def = getNodeType(t)!;
    const fields = def.fields.filter((f) => !f.serverMaintained).map((f) => `${f.name} (${f.kind}${f.enum ? `: ${f.enum.join('|')}` : ''}${f.unit ? ', 0-1' : ''})`);
    return `${t}: ${fields.join(', ') || 'no props'}`;
  });
}
