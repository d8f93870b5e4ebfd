export * from './envelope';
export * from './graph-events';
export * from './streams';
