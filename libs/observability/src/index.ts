export * from './strata-metrics';
