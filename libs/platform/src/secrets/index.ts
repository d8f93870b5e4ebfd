export * from './secret-cipher';
export * from './secrets-key';
export * from './secret-store.port';
export * from './sqlite-secret-store';
export * from './mongo-secret-store';
