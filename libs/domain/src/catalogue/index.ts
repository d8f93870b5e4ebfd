export * from './prop-field';
export * from './names';
export * from './schema';
export * from './node-types';
export * from './edge-types';
export * from './resolve-node-type';
export * from './openapi-schemas';
export * from './client-aliases';
// Props helpers are also reachable here so callers need one import for the catalogue.
export * from '../props';
