export * from './path-cost';
export * from './traversal-graph';
export * from './cheapest-paths';
export * from './fewest-hop-path';
export * from './k-cheapest-paths';
export * from './traversal-request';
