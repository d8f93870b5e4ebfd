export * from './ontology-records';
export * from './proposal-record';
export * from './ontology-events';
export * from './schema-decider';
export * from './type-decider';
export * from './object-decider';
export * from './ontology-errors';
