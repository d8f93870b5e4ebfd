export * from './tool-approvals.service';
export * from './approval-presenter';
export * from './approval-expiry';
export * from './mcp-approvals.module';
