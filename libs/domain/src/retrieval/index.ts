export * from './rank-fusion';
export * from './review-queues';
export * from './entity-type';
export * from './entity-match';
export * from './entity-merge';
export * from './stale-derivations';
export * from './retrieve-request';
export * from './embedding-text';
