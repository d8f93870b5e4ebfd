import { MCP_STREAM_PREFIXES } from '@strata/domain/mcp';
import type { MirroredProjectionDefinition } from '../registry/projection-definition';
import { McpProjection } from './mcp.projection';

export const MCP_PROJECTION: MirroredProjectionDefinition = { name: 'mcp', servers: 'mirror', streams: MCP_STREAM_PREFIXES, create: (db) => new McpProjection(db) };
