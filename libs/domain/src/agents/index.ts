export * from './agent-record';
export * from './agent-decider';
export * from './agent-events';
export * from './session-state';
export * from './session-wire';
export * from './credits';
