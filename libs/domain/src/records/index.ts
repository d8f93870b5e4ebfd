export * from './node-record';
export * from './edge-record';
export * from './version-record';
