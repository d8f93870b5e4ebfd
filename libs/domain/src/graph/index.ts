export * from './write-context';
export * from './node-decider';
export * from './node-version-data';
export * from './edge-decider';
export * from './series-uniqueness';
export * from './history-page';
export * from './graph-changes';
export * from './mirror-version';
