export * from './mcp-limits';
export * from './mcp-network';
export * from './connection-credentials';
export * from './connection-sync.service';
export * from './connection-tools.service';
export * from './mcp-connections.module';
export * from './sync-failure';
export * from './oauth/mcp-oauth.service';
