export * from './agent-tool-source.port';
export * from './connection-agent-tools';
export * from './mcp-agent-tools.module';
