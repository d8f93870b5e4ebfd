export * from './route-call';
export * from './protocol-versions';
export * from './strata-tools';
export * from './strata-resources';
export * from './strata-mcp-server';
export * from './mcp-http-exchange';
export * from './stdio-relay';
