export * from './guarded-fetch';
export * from './mcp-inspector';
export * from './mcp-session';
export * from './metered-fetch';
export * from './host-resolver';
