export * from './agent-tool-source.port';
export * from './connection-agent-tools';
