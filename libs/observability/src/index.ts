export * from './strata-metrics';
export * from './json-logger';
export * from './tracing';
