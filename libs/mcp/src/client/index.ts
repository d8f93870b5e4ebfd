export * from './guarded-fetch';
export * from './mcp-inspector';
export * from './metered-fetch';
