export * from './fields';
export * from './iso-time';
