/** The graph's layers (REFERENCE §9.1), in the order people read them. */
export const LAYERS = ['reality', 'epistemic', 'intent', 'action', 'memory', 'agent', 'ontology'] as const;
