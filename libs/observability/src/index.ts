export * from './strata-metrics';
export * from './json-logger';
export * from './tracing';
export * from './metrics-access';
