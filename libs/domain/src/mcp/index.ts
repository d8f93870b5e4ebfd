export * from './mcp-url';
export * from './connection-auth';
export * from './canonical-json';
export * from './tool-screening';
export * from './mcp-events';
export * from './connection-rules';
export * from './approval-events';
export * from './approval-decider';
