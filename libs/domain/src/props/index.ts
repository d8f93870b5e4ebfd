export * from './validate-node-props';
export * from './derive-summary';
export * from './searchable-text';
