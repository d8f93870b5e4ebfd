import { Body, readEnum, readString } from '../validation';
import { EndpointDef, writes } from './action';
import { CreateSpec, planCreate } from './create-action';
import { actorOf } from './actor';
import { TriggerDef } from './triggers';

export const DISTILL_OUTPUT_TYPES = ['summary', 'lesson', 'skill'] as const;
type OutputType = (typeof DISTILL_OUTPUT_TYPES)[number];

const triggers = (output: OutputType): TriggerDef[] => [
  {
    field: 'summarizes_uids',
    edge: 'Summarizes',
    dir: 'out',
    arity: 'many',
    required: output === 'skill',
    setProp: 'source_node_uids',
  },
  {
    field: 'session_uid',
    edge: 'CapturedIn',
    dir: 'out',
    arity: 'one',
    types: ['Session'],
    ...(output === 'lesson' ? { setProp: 'session_uid' } : {}),
  },
];

function summaryOf(body: Body): string | undefined {
  return typeof body.summary === 'string' && body.summary.trim() ? body.summary : undefined;
}

/** One spec per output type (REFERENCE §4.13). */
const SPECS: Record<OutputType, CreateSpec> = {
  summary: {
    nodeType: 'Summary',
    triggers: triggers('summary'),
    defaults: ({ label, body, ctx }) => ({
      content: summaryOf(body) ?? label,
      summary_type: body.session_uid ? 'session_distillation' : 'topic',
      generated_by: ctx.agent_id,
      generated_at: ctx.now,
    }),
  },
  lesson: {
    nodeType: 'Lesson',
    triggers: triggers('lesson'),
    defaults: ({ label, body }) => ({ content: summaryOf(body) ?? label }),
  },
  skill: {
    nodeType: 'Skill',
    triggers: triggers('skill'),
    defaults: ({ label, body }) => ({ name: label, description: summaryOf(body) ?? '' }),
    overrides: ({ ctx }) => ({ proposed_by: actorOf(ctx) }),
  },
};

/** `/memory/distill`: a Summary, Lesson or candidate Skill linked to what it distils. */
export const MEMORY_DISTILL: EndpointDef = {
  path: 'memory/distill',
  single: 'distill',
  actions: {
    distill: writes(async (body, view, ctx, action) => {
      readString(body, 'label', { required: true, trim: true });
      const output = readEnum(body, 'output_type', DISTILL_OUTPUT_TYPES) ?? 'summary';
      const { cs, node } = await planCreate(SPECS[output], body, view, ctx);
      return cs.createResult(node, action, { output_type: output });
    }),
  },
};
