export * from './layers';
export * from './chunking';
export * from './labels';
export * from './dedup';
export * from './final-status';
export * from './ingest-requests';
export * from './chunk-uid';
export * from './extracted-nodes';
