export * from './account-events';
export * from './membership-decider';
export * from './refresh-token-decider';
export * from './api-key-decider';
