export * from './envelope';
export * from './graph-events';
export * from './streams';
export * from './live-node-delta';
export * from './domain-event';
export * from './pending-event';
