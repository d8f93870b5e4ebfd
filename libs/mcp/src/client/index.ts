export * from './guarded-fetch';
export * from './mcp-inspector';
