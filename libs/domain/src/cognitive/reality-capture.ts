import { EndpointDef } from './action';
import { createAction } from './create-action';

/** REFERENCE §4.1 `/reality/capture`. */
export const REALITY_CAPTURE: EndpointDef = {
  path: 'reality/capture',
  actions: {
    source: createAction({
      nodeType: 'Source',
      defaults: ({ label }) => ({ title: label, source_type: 'webpage' }),
      triggers: [{ field: 'source_uid', edge: 'DerivedFrom', dir: 'out', arity: 'one' }],
    }),
    snippet: createAction({
      nodeType: 'Snippet',
      defaults: ({ label }) => ({ content: label, snippet_type: 'passage' }),
      triggers: [{ field: 'source_uid', edge: 'DerivedFrom', dir: 'out', arity: 'one', required: true, types: ['Source', 'Document', 'Chunk'] }],
    }),
    observation: createAction({
      nodeType: 'Observation',
      defaults: ({ label, ctx }) => ({ content: label, observation_type: 'empirical', timestamp: ctx.now }),
      triggers: [
        { field: 'source_uid', edge: 'DerivedFrom', dir: 'out', arity: 'one' },
        { field: 'session_uid', edge: 'CapturedIn', dir: 'out', arity: 'one', types: ['Session'], setProp: 'session_uid' },
      ],
    }),
  },
};
