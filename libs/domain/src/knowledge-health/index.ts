export * from './exception-kinds';
export * from './exception-id';
export * from './exception-status';
export * from './evidence-completeness';
export * from './health-state';
export * from './health-query';
